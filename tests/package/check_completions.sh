#!/usr/bin/env bash
# tests/package/check_completions.sh: the shell completions (completions/).
# Every flag that `tlparse --help` prints must be offered by both (at
# `tlparse -`, all but run's --trace-dir; at `tlparse run -`, all but
# --latest and --all-ranks-html), with run and, after its options, a
# command and its files: bash's
# function is called as bash-completion calls it (and loaded the way
# bash-completion loads it, where that is installed); zsh's is driven in a
# real interactive zsh through a pseudo-terminal (zsh/zpty), pressing TAB.
# Values are checked too: folders after -o, Chrome traces after --profile,
# nothing after --version.
#
#   bash tests/package/check_completions.sh
#
# TLPARSE names the binary whose --help is read (default build/tlparse).
# Where bash 4 or the binary is missing it prints one line
# "check_completions: skipped: ..." and exits 0; zsh's half is skipped with a
# message where zsh is missing. Its last line is
# "check_completions: N passed, N failed"; it exits 1 if any failed.
set -euo pipefail
cd "$(dirname "$0")/../.."
src=$PWD
name=check_completions
skip() { echo "$name: skipped: $*"; exit 0; }
tlparse=${TLPARSE:-$src/build/tlparse}
[ -x "$tlparse" ] || skip "no $tlparse to read --help from (build it, or set TLPARSE)"
((BASH_VERSINFO[0] >= 4)) || skip "bash 4 or later needed"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0
failed=0
ok() { echo "ok: $*"; passed=$((passed + 1)); }
bad() { echo "FAIL: $*"; failed=$((failed + 1)); }
# expect WHAT EXPECTED-WORDS... -- GOT-WORDS...: the same sets of words.
expect() {
  local what=$1 want got
  shift
  want=$(printf '%s\n' "$@" | sed '/^--$/,$d' | sort -u)
  got=$(printf '%s\n' "$@" | sed '1,/^--$/d' | sort -u)
  if [ "$want" = "$got" ]; then
    ok "$what"
  else
    bad "$what: wanted [$(echo $want)], got [$(echo $got)]"
  fi
}

# The flags of --help, and a folder to complete in.
mapfile -t flags < <("$tlparse" --help | grep -oE -- '(^|[][ |])--?[a-zA-Z][a-zA-Z-]*' |
  sed 's/^[][ |]*//' | sort -u)
[ "${#flags[@]}" -ge 15 ] || { echo "$name: read only ${#flags[@]} flags from --help"; exit 1; }
echo "flags of --help: ${flags[*]}"
work=$tmp/work
mkdir -p "$work/reports" "$work/traces"
touch "$work/trace.log" "$work/prof.json" "$work/prof2.json.gz" "$work/notes.txt"

# --- bash ----------------------------------------------------------------------
# bash_complete WORD...: COMPREPLY of _tlparse for that command line, the last
# word being the one completed (COMP_WORDS as bash splits them: "=" alone).
bash_complete() {
  (cd "$work" && bash --norc --noprofile -c '
    source "$1"
    shift
    COMP_WORDS=("$@")
    COMP_CWORD=$(($# - 1))
    COMPREPLY=()
    _tlparse tlparse "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
    printf "%s\n" "${COMPREPLY[@]}"' sh "$src/completions/tlparse.bash" "$@")
}
# offers WHAT FLAG... -- GOT...: every FLAG is among GOT.
offers() {
  local what=$1 f missing=""
  shift
  local -a want=() got=()
  while [ $# -gt 0 ] && [ "$1" != -- ]; do want+=("$1"); shift; done
  shift
  got=("$@")
  for f in "${want[@]}"; do
    printf '%s\n' "${got[@]}" | grep -qxF -- "$f" || missing+=" $f"
  done
  if [ -z "$missing" ]; then ok "$what"; else bad "$what: not offered:$missing"; fi
}
# --trace-dir is `tlparse run`'s; --latest and --all-ranks-html are not.
top_flags=() run_flags=()
for f in "${flags[@]}"; do
  [ "$f" = --trace-dir ] || top_flags+=("$f")
  [ "$f" = --latest ] || [ "$f" = --all-ranks-html ] || run_flags+=("$f")
done
mkdir -p "$tmp/bin"
printf '#!/bin/sh\n' >"$tmp/bin/tlparse-test-cmd"
chmod +x "$tmp/bin/tlparse-test-cmd"
export PATH="$tmp/bin:$PATH"
offers "bash: 'tlparse -<TAB>' offers every flag of --help but --trace-dir" \
  "${top_flags[@]}" -- $(bash_complete tlparse -)
offers "bash: 'tlparse run -<TAB>' offers every flag of --help but --latest and --all-ranks-html" \
  "${run_flags[@]}" -- $(bash_complete tlparse run -)
expect "bash: 'tlparse run --l<TAB>' offers nothing" -- $(bash_complete tlparse run --l)
expect "bash: 'tlparse r<TAB>' offers run and the folder" run reports -- $(bash_complete tlparse r)
expect "bash: 'tlparse d<TAB>' offers diff" diff -- $(bash_complete tlparse d)
offers "bash: 'tlparse diff -<TAB>' offers diff's flags" -o --out --overwrite \
  --no-browser -i --inductor-provenance -p -v --strict --custom-header-html -- \
  $(bash_complete tlparse diff -)
expect "bash: 'tlparse diff a.log tr<TAB>' offers the trace and the folder" \
  trace.log traces -- $(bash_complete tlparse diff a.log tr)
expect "bash: 'tlparse run --trace-dir <TAB>' offers folders" reports traces -- \
  $(bash_complete tlparse run --trace-dir '')
expect "bash: 'tlparse run -i -- tlparse-test-c<TAB>' offers the command" tlparse-test-cmd -- \
  $(bash_complete tlparse run -i -- tlparse-test-c)
expect "bash: 'tlparse run -o out tlparse-test-c<TAB>' offers the command" tlparse-test-cmd -- \
  $(bash_complete tlparse run -o out tlparse-test-c)
expect "bash: 'tlparse run -- tlparse-test-cmd -o tr<TAB>' offers the command's files" \
  trace.log traces -- $(bash_complete tlparse run -- tlparse-test-cmd -o tr)
expect "bash: 'tlparse --pro<TAB>'" --profile -- $(bash_complete tlparse --pro)
expect "bash: 'tlparse --strict<TAB>'" --strict --strict-compile-id -- $(bash_complete tlparse --strict)
expect "bash: 'tlparse -o <TAB>' offers folders" reports traces -- $(bash_complete tlparse -o '')
expect "bash: 'tlparse --out=<TAB>' offers folders" reports traces -- $(bash_complete tlparse --out = '')
expect "bash: 'tlparse --profile <TAB>' offers traces and folders" \
  prof.json prof2.json.gz reports traces -- $(bash_complete tlparse --profile '')
expect "bash: 'tlparse -j <TAB>' starts at 1" 1 -- $(bash_complete tlparse -j '' | head -n 1)
expect "bash: nothing after --custom-header-html" -- $(bash_complete tlparse --custom-header-html '')
expect "bash: 'tlparse tr<TAB>' offers the trace and the folder" trace.log traces -- \
  $(bash_complete tlparse tr)
if [ -f /usr/share/bash-completion/bash_completion ]; then
  mkdir -p "$tmp/share/bash-completion/completions"
  cp completions/tlparse.bash "$tmp/share/bash-completion/completions/tlparse"
  loaded=$(XDG_DATA_DIRS=$tmp/share bash --norc --noprofile -c '
    source /usr/share/bash-completion/bash_completion
    __load_completion tlparse && complete -p tlparse' 2>&1 || true)
  if [[ $loaded == *"-F _tlparse tlparse"* ]]; then
    ok "bash-completion loads it from share/bash-completion/completions/tlparse"
  else
    bad "bash-completion did not load it: $loaded"
  fi
else
  echo "skipped: loading through bash-completion (not installed)"
fi

# --- zsh -----------------------------------------------------------------------
if ! command -v zsh >/dev/null 2>&1; then
  echo "skipped: zsh (not installed)"
else
  # zsh_complete 'COMMAND LINE': each match zsh's completion system offers
  # when TAB is pressed at the end of that line, in an interactive zsh whose
  # fpath starts with completions/ (compadd is wrapped to print its matches).
  cat >"$tmp/capture.zsh" <<'EOF'
zmodload zsh/zpty || exit 1
zpty z zsh -f -i
zpty -w z "fpath=(${(q)1} \$fpath); autoload -Uz compinit; compinit -u -D"
zpty -w z 'compadd() { if [[ ${@[1,(i)(-|--)]} == *-(O|A|D)\ * ]]; then builtin compadd "$@"; return; fi; local -a __hits; builtin compadd -A __hits "$@"; (( $#__hits )) && print -rl -- "<hit>"${^__hits}; builtin compadd "$@" }'
zpty -w z 'echo "<<ready>>"'
local line
integer n=0
while (( n++ < 400 )); do
  zpty -r -t z line 2>/dev/null || { sleep 0.05; continue }
  [[ $line == '<<ready>>'* ]] && break
done
zpty -w -n z "$2"$'\t'
# The matches come at once; stop after a second with nothing more to read.
integer idle=0
while (( idle < 20 )); do
  if zpty -r -t z line 2>/dev/null; then
    idle=0
    [[ $line == *'<hit>'* ]] && print -r -- ${${line##*<hit>}%%$'\r'*}
  else
    (( idle++ ))
    sleep 0.05
  fi
done
zpty -d z
EOF
  zsh_complete() {
    (cd "$work" && timeout 30 zsh -f "$tmp/capture.zsh" "$src/completions" "$1")
  }
  if ! zsh -n completions/_tlparse; then
    bad "zsh: completions/_tlparse does not parse"
  fi
  offers "zsh: 'tlparse -<TAB>' offers every flag of --help but --trace-dir" \
    "${top_flags[@]}" -- $(zsh_complete 'tlparse -')
  offers "zsh: 'tlparse run -<TAB>' offers every flag of --help but --latest and --all-ranks-html" \
    "${run_flags[@]}" -- $(zsh_complete 'tlparse run -')
  expect "zsh: 'tlparse ru<TAB>' offers run" run -- $(zsh_complete 'tlparse ru')
  expect "zsh: 'tlparse di<TAB>' offers diff" diff -- $(zsh_complete 'tlparse di')
  offers "zsh: 'tlparse diff -<TAB>' offers diff's flags" -o --out --overwrite \
    --no-browser -i --strict --custom-header-html -- $(zsh_complete 'tlparse diff -')
  expect "zsh: 'tlparse diff trace.log tr<TAB>' offers the trace and the folder" \
    trace.log traces -- $(zsh_complete 'tlparse diff trace.log tr')
  expect "zsh: 'tlparse run -i -- tlparse-test-c<TAB>' offers the command" tlparse-test-cmd -- \
    $(zsh_complete 'tlparse run -i -- tlparse-test-c')
  expect "zsh: 'tlparse --pro<TAB>'" --profile -- $(zsh_complete 'tlparse --pro')
  expect "zsh: 'tlparse -o <TAB>' offers folders" reports traces -- $(zsh_complete 'tlparse -o ')
  expect "zsh: 'tlparse --profile <TAB>' offers traces and folders" \
    prof.json prof2.json.gz reports traces -- $(zsh_complete 'tlparse --profile ')
  expect "zsh: nothing after --version" -- $(zsh_complete 'tlparse --version ')
  expect "zsh: --all-ranks-html leaves out --latest, -e and --profile" \
    --custom-header-html --help --inductor-provenance --jobs --no-browser --out \
    --overwrite --plain-text --strict --strict-compile-id --verbose --version -- \
    $(zsh_complete 'tlparse x.log --all-ranks-html --')
fi

echo "$name: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
