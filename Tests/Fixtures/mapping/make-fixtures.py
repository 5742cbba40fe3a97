#!/usr/bin/env python3
"""Writes the compiled mapping model CompatibilityMigrationMappingTests reads (the corpus has none).

Run once from this directory: python3 make-fixtures.py [path/to/shared/corpus]
Wibosco2to3.cdm maps Post of wibosco-migration's version 2 to Post of version 3 and Color to the
new Color. Its version hashes are taken from the Z_METADATA that Core Data wrote into the stores of
those versions (read from temporary copies), not from cdstore. The archive has the shape of
model-format.md §3.4: an NSMappingModel whose NSEntityMappings hold NSEntityMapping objects.
"""
import os, plistlib, shutil, sqlite3, sys, tempfile
from plistlib import UID

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "../../../../shared/corpus")


def store_hashes(store):
    source = os.path.join(CORPUS, store)
    with tempfile.TemporaryDirectory() as tmp:
        for suffix in ("", "-wal", "-shm"):
            if os.path.exists(source + suffix):
                shutil.copy(source + suffix, os.path.join(tmp, "store" + suffix))
        db = sqlite3.connect(os.path.join(tmp, "store"))
        blob = db.execute("SELECT Z_PLIST FROM Z_METADATA").fetchone()[0]
        db.close()
    return plistlib.loads(blob)["NSStoreModelVersionHashes"]


source = store_hashes("wibosco-migration/CoreDataMigration_Example_2.sqlite")
destination = store_hashes("wibosco-migration/CoreDataMigration_Example_3.sqlite")

objects = ["$null"]


def add(value):
    objects.append(value)
    return UID(len(objects) - 1)


def cls(name, *parents):
    return add({"$classname": name, "$classes": [name, *parents, "NSObject"]})


mapping_class = cls("NSEntityMapping")
array_class = cls("NSArray")
model_class = cls("NSMappingModel")


def entity_mapping(name, source_name, destination_name, mapping_type):
    fields = {"$class": mapping_class, "NSMappingName": add(name), "NSMappingType": mapping_type,
              "NSDestinationEntityName": add(destination_name),
              "NSDestinationEntityVersionHash": add(destination[destination_name])}
    if source_name:
        fields["NSSourceEntityName"] = add(source_name)
        fields["NSSourceEntityVersionHash"] = add(source[source_name])
    return add(fields)


mappings = [entity_mapping("PostToPost", "Post", "Post", 5), entity_mapping("Color", None, "Color", 2)]
array = add({"$class": array_class, "NS.objects": mappings})
root = add({"$class": model_class, "NSEntityMappings": array})
archive = {"$version": 100000, "$archiver": "NSKeyedArchiver", "$top": {"root": root}, "$objects": objects}
data = plistlib.dumps(archive, fmt=plistlib.FMT_BINARY, sort_keys=True)
with open(os.path.join(HERE, "Wibosco2to3.cdm"), "wb") as f:
    f.write(data)
print(f"Wibosco2to3.cdm: {len(data)} bytes; source Post {source['Post'].hex()}, destination Post {destination['Post'].hex()}")
