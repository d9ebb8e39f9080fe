#!/bin/bash
# The from-source path, end to end: `make install` into a temporary prefix, then in
# a new shell: tab-complete `brados lib<TAB> art<TAB>` and a rating key, read `man brados`,
# and run a brados-hello plugin dropped on PATH. Prints each check; exits 1 on a failure.
#
#     packaging/check-install.sh [SCRATCH]     (SCRATCH: the release build's scratch path, default .build)
set -uo pipefail
cd "$(dirname "$0")/.."
scratch="${1:-.build}"
prefix="$(mktemp -d)"
home="$(mktemp -d)"
trap 'rm -rf "$prefix" "$home"' EXIT
failures=0
check() { if eval "$2"; then echo "ok   $1"; else echo "FAIL $1"; failures=$((failures + 1)); fi; }

make install PREFIX="$prefix" SCRATCH="$scratch" >/dev/null || { echo "FAIL make install"; exit 1; }
check "binary installed" "[ -x '$prefix/bin/brados' ]"
check "bash completion installed" "[ -f '$prefix/share/bash-completion/completions/brados' ]"
check "zsh completion installed" "[ -f '$prefix/share/zsh/site-functions/_brados' ]"
check "fish completion installed" "[ -f '$prefix/share/fish/vendor_completions.d/brados.fish' ]"
check "man page installed" "[ -f '$prefix/share/man/man1/brados.1.gz' ]"
check "systemd user units installed, running $prefix/bin/brados" "grep -qx 'ExecStart=$prefix/bin/brados sync' '$prefix/share/systemd/user/brados-sync.service'"
check "copyright and README installed" "[ -f '$prefix/share/doc/brados/copyright' ] && [ -f '$prefix/share/doc/brados/README' ]"

# A new shell, as a new user: PATH has the prefix; the completion is sourced from where it was installed.
export PATH="$prefix/bin:$PATH" BRADOS_HOME="$home" HOME="$home"
brados library albums >/dev/null 2>&1   # the embedded demo backend fills the snapshot
key="$(brados --offline library albums --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["albums"][0]["ratingKey"])')"
complete_line() {
    bash --norc -c "
        source '$prefix/share/bash-completion/completions/brados'
        COMP_LINE='$1'; COMP_POINT=\${#COMP_LINE}
        read -r -a COMP_WORDS <<< \"\$COMP_LINE\"
        [[ \"\$COMP_LINE\" == *' ' ]] && COMP_WORDS+=('')
        COMP_CWORD=\$(( \${#COMP_WORDS[@]} - 1 ))
        _brados brados \"\${COMP_WORDS[COMP_CWORD]}\" \"\${COMP_WORDS[COMP_CWORD-1]}\"
        printf '%s\n' \"\${COMPREPLY[@]}\""
}
check "brados lib<TAB> → library" "[ \"\$(complete_line 'brados lib')\" = library ]"
check "brados library art<TAB> → artwork" "[ \"\$(complete_line 'brados library art')\" = artwork ]"
check "brados library artwork <TAB> offers rating key $key" "complete_line 'brados library artwork ' | grep -x '$key' >/dev/null"
check "man brados renders" "MANWIDTH=80 man -M '$prefix/share/man' brados 2>/dev/null | grep CACHING >/dev/null"
mkdir -p "$home/bin" && cp examples/brados-hello "$home/bin/"
check "brados hello runs brados-hello from PATH" "PATH='$home/bin:$PATH' brados hello Ada | grep 'hello, Ada' >/dev/null"
make uninstall PREFIX="$prefix" >/dev/null
check "make uninstall removes every file make install put there" "[ -z \"\$(find '$prefix' -type f)\" ]"
echo "$failures failed"
exit $((failures > 0))
