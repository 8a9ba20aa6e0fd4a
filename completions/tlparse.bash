# bash completion for tlparse                              -*- shell-script -*-
# Installed as share/bash-completion/completions/tlparse, where bash-completion
# loads it the first time `tlparse <TAB>` is pressed; it also works alone:
# `source tlparse.bash` in ~/.bashrc. Completes every flag of `tlparse --help`,
# folders after -o, Chrome traces after --profile, a trace or folder as PATH.

_tlparse()
{
    local cur prev
    cur=${COMP_WORDS[COMP_CWORD]}
    prev=
    ((COMP_CWORD > 0)) && prev=${COMP_WORDS[COMP_CWORD - 1]}
    # "--out=DIR": bash splits words at '=' (COMP_WORDBREAKS), so the flag is
    # two words back and the word before the value is "=".
    if [[ $cur == = ]]; then
        prev=${COMP_WORDS[COMP_CWORD - 1]}
        cur=
    elif [[ $prev == = ]] && ((COMP_CWORD > 1)); then
        prev=${COMP_WORDS[COMP_CWORD - 2]}
    fi

    COMPREPLY=()
    case $prev in
        -o | --out)
            compopt -o filenames 2>/dev/null
            mapfile -t COMPREPLY < <(compgen -d -- "$cur")
            return
            ;;
        --profile)
            # A torch.profiler Chrome trace (.json, .json.gz) or a folder.
            compopt -o filenames 2>/dev/null
            mapfile -t COMPREPLY < <(
                compgen -d -- "$cur"
                compgen -f -X '!*.json' -- "$cur"
                compgen -f -X '!*.json.gz' -- "$cur"
            )
            return
            ;;
        -j | --jobs)
            local n
            n=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)
            mapfile -t COMPREPLY < <(compgen -W "$(seq 1 "$n")" -- "$cur")
            return
            ;;
        --custom-header-html)
            # Free HTML text: nothing to offer.
            return
            ;;
    esac

    if [[ $cur == -* ]]; then
        local flags="-o --out --latest --overwrite --no-browser
            -i --inductor-provenance --strict --strict-compile-id
            -p --plain-text -e --export -v --verbose --custom-header-html
            --profile --all-ranks-html -j --jobs --version -h --help"
        mapfile -t COMPREPLY < <(compgen -W "$flags" -- "$cur")
        return
    fi

    # PATH: a trace log, or a folder (--latest, --all-ranks-html).
    compopt -o filenames 2>/dev/null
    mapfile -t COMPREPLY < <(compgen -f -- "$cur")
} &&
    complete -F _tlparse tlparse
