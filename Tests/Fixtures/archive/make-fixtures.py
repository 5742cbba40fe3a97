#!/usr/bin/env python3
"""Writes the fixtures of CDArchiveTests and prints the values the tests expect.

Run once from this directory: python3 make-fixtures.py [path/to/shared/corpus]
The model-cache blobs are copied out of private copies of corpus stores (the corpus is never
opened for writing); the other files are built here with plistlib, independently of cdstore.
"""
import datetime, hashlib, os, plistlib, shutil, sqlite3, sys, tempfile, zlib

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "../../../../shared/corpus")


def sha256(data):
    return hashlib.sha256(data).hexdigest()


def write(name, data):
    with open(os.path.join(HERE, name), "wb") as f:
        f.write(data)
    print(f"{name}: {len(data)} bytes, sha256 {sha256(data)}")


def model_cache(store, name):
    """Z_MODELCACHE.Z_CONTENT of a store, read from a temporary copy with its sidecars."""
    source = os.path.join(CORPUS, store)
    with tempfile.TemporaryDirectory() as tmp:
        for suffix in ("", "-wal", "-shm"):
            if os.path.exists(source + suffix):
                target = os.path.join(tmp, os.path.basename(source) + suffix)
                shutil.copyfile(source + suffix, target)
        uri = "file:" + os.path.join(tmp, os.path.basename(source)) + "?mode=ro"
        with sqlite3.connect(uri, uri=True) as db:
            (blob,), = db.execute("SELECT Z_CONTENT FROM Z_MODELCACHE").fetchall()
    write(name, blob)
    inflated = zlib.decompress(blob, -15)
    print(f"  inflated: {len(inflated)} bytes, sha256 {sha256(inflated)}, starts {inflated[:8]!r}")


model_cache("wibosco-migration/CoreDataMigration_Example_1.sqlite", "wibosco-1-modelcache.deflate")
model_cache("wibosco-migration/CoreDataMigration_Example_3.sqlite", "wibosco-3-modelcache.deflate")

# Every binary plist type plistlib writes: UIDs of each width, ASCII and UTF-16 strings
# (including a surrogate pair), reals, dates on both sides of 2001, integers of each width,
# data, booleans and nested containers. sort_keys=False keeps the order written here.
values = {
    "ascii": "Core Data",
    "unicode": "Grüße, 世界 🦊",
    "empty": "",
    "uids": [plistlib.UID(0), plistlib.UID(255), plistlib.UID(256), plistlib.UID(70000)],
    "reals": [3.141592653589793, -0.5, 1e300],
    "dates": [datetime.datetime(2024, 2, 29, 12, 30, 15), datetime.datetime(1999, 12, 31, 23, 59, 59)],
    "integers": [0, 255, 256, 65536, 4294967296, -1, -9223372036854775808],
    "data": b"\x00\x01\xfe\xff",
    "flags": {"yes": True, "no": False},
    "nested": {"list": [{"deep": {"deeper": ["x", plistlib.UID(7)]}}], "emptyList": [], "emptyDict": {}},
}
write("values.bplist", plistlib.dumps(values, fmt=plistlib.FMT_BINARY, sort_keys=False))
print("  date seconds since 2001:", [
    (d - datetime.datetime(2001, 1, 1)).total_seconds() for d in values["dates"]])

# plistlib writes True once and refers to it 100 times: an array longer than the object table.
write("repeated-references.bplist", plistlib.dumps([True] * 100, fmt=plistlib.FMT_BINARY))


def cls(name, *supers):
    return {"$classname": name, "$classes": [name, *supers, "NSObject"]}


U = plistlib.UID
# A hand-written NSKeyedArchiver archive of Foundation classes; the root NSArray lists them all.
objects = [
    "$null",                                                                    # 0
    {"$class": U(2), "NS.objects": [U(i) for i in range(3, 15)]},             # 1 root
    cls("NSArray"),                                                             # 2
    {"$class": U(16), "NS.objects": [U(15), U(17), U(18), U(19), U(0)]},      # 3 NSArray
    {"$class": U(20), "NS.keys": [U(21), U(22)], "NS.objects": [U(17), U(15)]},  # 4 NSDictionary
    {"$class": U(23), "NS.time": 730_000_000.25},                              # 5 NSDate
    {"$class": U(24), "NS.uuidbytes": bytes.fromhex("6ba7b8109dad11d180b400c04fd430c8")},  # 6 NSUUID
    {"$class": U(25), "NS.base": U(0), "NS.relative": U(26)},                  # 7 NSURL
    {"$class": U(25), "NS.base": U(7), "NS.relative": U(27)},                  # 8 NSURL with a base
    {"$class": U(28), "NS.string": "mutable ✓"},                               # 9 NSMutableString
    {"$class": U(29), "NS.objects": [U(21), U(22)]},                           # 10 NSSet
    {"$class": U(30), "NS.data": b"\xde\xad\xbe\xef"},                         # 11 NSMutableData
    {"$class": U(31), "width": 3, "name": U(15)},                              # 12 unknown class
    {"$class": U(32)},                                                          # 13 NSNull
    {"$class": U(33), "NS.time": 0},                                           # 14 NSDate, integer time
    "hello",                                                                    # 15
    cls("NSMutableArray", "NSArray"),                                           # 16
    42,                                                                         # 17
    2.5,                                                                        # 18
    True,                                                                       # 19
    cls("NSDictionary"),                                                        # 20
    "a",                                                                        # 21
    "b",                                                                        # 22
    cls("NSDate"),                                                              # 23
    cls("NSUUID"),                                                              # 24
    cls("NSURL"),                                                               # 25
    "https://example.org/dir/",                                                 # 26
    "sub/file.txt",                                                             # 27
    cls("NSMutableString", "NSString"),                                         # 28
    cls("NSSet"),                                                               # 29
    cls("NSMutableData", "NSData"),                                             # 30
    cls("CDWidget"),                                                            # 31
    cls("NSNull"),                                                              # 32
    cls("NSDate"),                                                              # 33
]
archive = {"$version": 100000, "$archiver": "NSKeyedArchiver", "$top": {"root": U(1)}, "$objects": objects}
write("foundation-classes.bplist", plistlib.dumps(archive, fmt=plistlib.FMT_BINARY))

# Archives no archiver writes, for the walker's limits: an array that contains itself twice
# and a dictionary that is its own key and value; then 40 arrays that each hold the next one
# twice, acyclic but with 2^40 paths from the root to the last one.
cyclic = [
    "$null",
    {"$class": U(3), "NS.objects": [U(1), U(2), U(1)]},
    {"$class": U(4), "NS.keys": [U(2)], "NS.objects": [U(2)]},
    cls("NSArray"),
    cls("NSDictionary"),
]
write("cyclic-archive.bplist", plistlib.dumps(
    {"$version": 100000, "$archiver": "NSKeyedArchiver", "$top": {"root": U(1)}, "$objects": cyclic},
    fmt=plistlib.FMT_BINARY))
shared = ["$null", cls("NSArray")]
shared += [{"$class": U(1), "NS.objects": [U(i + 1), U(i + 1)]} for i in range(2, 42)]
shared.append("bottom")
write("shared-archive.bplist", plistlib.dumps(
    {"$version": 100000, "$archiver": "NSKeyedArchiver", "$top": {"root": U(2)}, "$objects": shared},
    fmt=plistlib.FMT_BINARY))
