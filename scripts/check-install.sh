#!/usr/bin/env bash
# Checks `make install` end to end, as a user without the Swift toolchain would meet it: installs
# into a temporary PREFIX, then runs the installed cdstore with an empty environment and, where a
# mount namespace can be made (root on Linux), with the toolchain's folder hidden behind an empty
# one. Checks --help, inspect and model on copies of the samples, a completion request, the man
# pages through man(1), the completion scripts, the binary's RUNPATH and libraries, and that
# `make uninstall` removes every file. Run by .ci/run; leaves nothing behind.
#
#   scripts/check-install.sh
set -euo pipefail
cd "$(dirname "$0")/.."
repository=$(pwd)

passed=0
failed=0
check() {
    local description=$1
    shift
    if "$@"; then
        passed=$((passed + 1))
        echo "ok - $description"
    else
        failed=$((failed + 1))
        echo "FAILED - $description"
    fi
}

# Every check of the installed binary itself; runs inside the namespace when there is one.
# Arguments: the install prefix, a scratch folder.
check_installed_binary() {
    local prefix=$1 work=$2
    local cdstore="$prefix/bin/cdstore"
    local -a clean_env=(env -i "PATH=/usr/bin:/bin" "HOME=$work/home" "TMPDIR=$work/tmp")
    mkdir -p "$work/home" "$work/tmp" "$work/stores"
    cp Samples/Stores/TaskList.sqlite "$work/stores/"
    local store="$work/stores/TaskList.sqlite"
    local checksum
    checksum=$(cksum < "$store")

    check "cdstore --help runs with an empty environment" \
        grep -q "USAGE: cdstore <subcommand>" <("${clean_env[@]}" "$cdstore" --help)
    check "cdstore --version" \
        grep -qx "cdstore [0-9.]*" <("${clean_env[@]}" "$cdstore" --version)
    check "cdstore inspect reads a copied sample store (SQLite, the model cache through zlib)" \
        grep -q "Task" <("${clean_env[@]}" "$cdstore" inspect "$store")
    check "cdstore model reads an .xcdatamodeld (FoundationXML)" \
        grep -q "ExpensiveSportCar" <("${clean_env[@]}" "$cdstore" model "$repository/Samples/CoreDataPlus/SampleModel.xcdatamodeld")
    check "cdstore dump prints the sample's objects" \
        grep -q "task_description" <("${clean_env[@]}" "$cdstore" dump "$store" Task --limit 1)
    check "a completion request lists the store's entities" \
        grep -qx "Task" <("${clean_env[@]}" "$cdstore" ---completion dump -- positional@1 3 2 cdstore dump "$store" Ta)
    check "the sample store is unchanged" test "$(cksum < "$store")" = "$checksum"
    check "no private copy is left behind" test -z "$(ls -A "$work/tmp")"

    check "man -w finds cdstore(1) under PREFIX" \
        test "$(MANPATH="$prefix/share/man" man -w cdstore)" = "$prefix/share/man/man1/cdstore.1"
    check "man -w finds cdstore-troubleshooting(7) under PREFIX" \
        test "$(MANPATH="$prefix/share/man" man -w 7 cdstore-troubleshooting)" = "$prefix/share/man/man7/cdstore-troubleshooting.7"
    check "man cdstore shows the page" \
        grep -q "inspect Core Data store files without Core Data" <(MANPATH="$prefix/share/man" MANPAGER=cat MANWIDTH=100 man cdstore 2>/dev/null | head -20)

    check "bash loads the completion script" \
        grep -q "cdstore" <(bash --norc --noprofile -c "source '$prefix/share/bash-completion/completions/cdstore' && complete -p cdstore")
    if command -v zsh >/dev/null; then
        check "zsh parses the completion script" zsh -n "$prefix/share/zsh/site-functions/_cdstore"
    fi
    if command -v fish >/dev/null; then
        check "fish parses the completion script" fish --no-execute "$prefix/share/fish/vendor_completions.d/cdstore.fish"
    fi
}

if [ "${1:-}" = "--installed" ]; then
    # Re-entered inside the mount namespace: hide the toolchain, then check the binary.
    toolchain=$2 prefix=$3 work=$4
    mount -t tmpfs -o size=1m,mode=0755 cdstore-hidden-toolchain "$toolchain"
    check "the toolchain is hidden ($toolchain is empty)" test -z "$(ls -A "$toolchain")"
    check_installed_binary "$prefix" "$work"
    echo "$passed $failed" > "$work/counts"
    exit 0
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/cdstore-install-check.XXXXXX")
trap 'rm -rf "$work"' EXIT
prefix="$work/prefix"
toolchain=$(cd "$(dirname "$(readlink -f "$(command -v swift)")")/.." && pwd)

make install PREFIX="$prefix" || { echo "FAILED - make install"; exit 1; }
binary="$prefix/bin/cdstore"

installed=(bin/cdstore share/man/man1/cdstore.1 share/man/man7/cdstore-troubleshooting.7
           share/bash-completion/completions/cdstore share/zsh/site-functions/_cdstore
           share/fish/vendor_completions.d/cdstore.fish)
for file in "${installed[@]}"; do
    check "make install wrote PREFIX/$file" test -s "$prefix/$file"
done

if [ "$(uname -s)" = Linux ]; then
    runpath=$(readelf -d "$binary" | grep -E "RPATH|RUNPATH" || true)
    check "no RPATH or RUNPATH into the toolchain (${runpath:-none})" \
        bash -c '! grep -qE "swift|'"$toolchain"'" <<<"$1"' - "$runpath"
    libraries=$(env -i PATH=/usr/bin:/bin ldd "$binary")
    check "ldd finds every library" bash -c '! grep -q "not found" <<<"$1"' - "$libraries"
    check "no Swift runtime or Foundation library is loaded" \
        bash -c '! grep -qiE "libswift|libFoundation|lib_Foundation|libdispatch|libBlocksRuntime|'"$toolchain"'" <<<"$1"' - "$libraries"
    echo "Libraries the installed binary needs:"
    readelf -d "$binary" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/    \1/p'
fi

if [ "$(id -u)" = 0 ] && unshare --mount true 2>/dev/null; then
    echo "Running the installed binary with $toolchain hidden:"
    unshare --mount --propagation private bash "$repository/scripts/check-install.sh" --installed "$toolchain" "$prefix" "$work/run"
    read -r inner_passed inner_failed < "$work/run/counts"
    passed=$((passed + inner_passed))
    failed=$((failed + inner_failed))
else
    echo "note: cannot make a mount namespace here; the toolchain stays visible, so only the empty environment, RUNPATH and ldd show it is not used"
    check_installed_binary "$prefix" "$work/run"
fi

make uninstall PREFIX="$prefix" >/dev/null || { echo "FAILED - make uninstall"; exit 1; }
check "make uninstall removes every installed file" test -z "$(find "$prefix" -type f)"

echo "install check: $passed checks passed, $failed failed"
[ "$failed" -eq 0 ]
