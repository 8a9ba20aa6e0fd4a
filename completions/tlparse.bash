# bash completion for tlparse                              -*- shell-script -*-
# Installed as share/bash-completion/completions/tlparse, where bash-completion
# loads it the first time `tlparse <TAB>` is pressed; it also works alone:
# `source tlparse.bash` in ~/.bashrc. Completes every flag of `tlparse --help`,
# folders after -o, Chrome traces after --profile, a trace or folder as PATH
# (or the subcommands run and diff); after `tlparse run [OPTIONS] [--]`, a
# command and then its arguments; after `tlparse diff`, its own flags and
# two traces or folders.

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
    # `tlparse run [OPTIONS] [--] CMD [ARGS...]`: where CMD starts (the word
    # after `--`, or the first word that is neither an option nor a value).
    local run=0 i cmd=0
    if ((COMP_CWORD > 1)) && [[ ${COMP_WORDS[1]} == run ]]; then
        run=1
        for ((i = 2; i < COMP_CWORD; i++)); do
            case ${COMP_WORDS[i]} in
                --) cmd=$((i + 1)); break ;;
                -o | --out | --trace-dir | --profile | -j | --jobs | --custom-header-html)
                    [[ ${COMP_WORDS[i + 1]} == = ]] && ((i++))
                    ((i++)) ;;
                -*) ;;
                *) cmd=$i; break ;;
            esac
        done
        if ((cmd && COMP_CWORD == cmd)); then
            mapfile -t COMPREPLY < <(compgen -c -- "$cur")
            return
        elif ((cmd)); then
            compopt -o filenames 2>/dev/null
            mapfile -t COMPREPLY < <(compgen -f -- "$cur")
            return
        fi
    fi
    case $prev in
        --trace-dir)
            compopt -o filenames 2>/dev/null
            mapfile -t COMPREPLY < <(compgen -d -- "$cur")
            return
            ;;
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

    if ((COMP_CWORD > 1)) && [[ ${COMP_WORDS[1]} == diff ]]; then
        # `tlparse diff A B [OPTIONS]`: its flags; A and B, traces or folders.
        if [[ $cur == -* ]]; then
            mapfile -t COMPREPLY < <(compgen -W "-o --out --overwrite
                --no-browser -i --inductor-provenance -p --plain-text
                -v --verbose --strict --custom-header-html -h --help" -- "$cur")
            return
        fi
        compopt -o filenames 2>/dev/null
        mapfile -t COMPREPLY < <(compgen -f -- "$cur")
        return
    fi

    if [[ $cur == -* ]]; then
        local flags="-o --out --overwrite --no-browser
            -i --inductor-provenance --strict --strict-compile-id
            -p --plain-text -e --export -v --verbose --custom-header-html
            --profile -j --jobs --version -h --help"
        if ((run)); then
            flags+=" --trace-dir --"
        else
            flags+=" --latest --all-ranks-html"
        fi
        mapfile -t COMPREPLY < <(compgen -W "$flags" -- "$cur")
        return
    fi

    if ((run)); then # CMD, given without `--`
        mapfile -t COMPREPLY < <(compgen -c -- "$cur")
        return
    fi
    # PATH: a trace log, or a folder (--latest, --all-ranks-html); first, run
    # and diff.
    compopt -o filenames 2>/dev/null
    mapfile -t COMPREPLY < <(
        ((COMP_CWORD == 1)) && compgen -W "run diff" -- "$cur"
        compgen -f -- "$cur"
    )
} &&
    complete -F _tlparse tlparse
