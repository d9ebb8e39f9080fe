#!/bin/bash

__brados_cursor_index_in_current_word() {
    local remaining="${COMP_LINE}"

    local word
    for word in "${COMP_WORDS[@]::COMP_CWORD}"; do
        remaining="${remaining##*([[:space:]])"${word}"*([[:space:]])}"
    done

    local -ir index="$((COMP_POINT - ${#COMP_LINE} + ${#remaining}))"
    if [[ "${index}" -le 0 ]]; then
        printf 0
    else
        printf %s "${index}"
    fi
}

# positional arguments:
#
# - 1: the current (sub)command's count of positional arguments
#
# required variables:
#
# - repeating_flags: the repeating flags that the current (sub)command can accept
# - non_repeating_flags: the non-repeating flags that the current (sub)command can accept
# - repeating_options: the repeating options that the current (sub)command can accept
# - non_repeating_options: the non-repeating options that the current (sub)command can accept
# - positional_number: value ignored
# - unparsed_words: unparsed words from the current command line
#
# modified variables:
#
# - non_repeating_flags: remove flags for this (sub)command that are already on the command line
# - non_repeating_options: remove options for this (sub)command that are already on the command line
# - positional_number: set to the current positional number
# - unparsed_words: remove all flags, options, and option values for this (sub)command
__brados_offer_flags_options() {
    local -ir positional_count="${1}"
    positional_number=0

    local was_flag_option_terminator_seen=false
    local is_parsing_option_value=false

    local -ar unparsed_word_indices=("${!unparsed_words[@]}")
    local -i word_index
    for word_index in "${unparsed_word_indices[@]}"; do
        if "${is_parsing_option_value}"; then
            # This word is an option value:
            # Reset marker for next word iff not currently the last word
            [[ "${word_index}" -ne "${unparsed_word_indices[${#unparsed_word_indices[@]} - 1]}" ]] && is_parsing_option_value=false
            unset "unparsed_words[${word_index}]"
            # Do not process this word as a flag or an option
            continue
        fi

        local word="${unparsed_words["${word_index}"]}"
        if ! "${was_flag_option_terminator_seen}"; then
            case "${word}" in
            --)
                unset "unparsed_words[${word_index}]"
                # by itself -- is a flag/option terminator, but if it is the last word, it is the start of a completion
                if [[ "${word_index}" -ne "${unparsed_word_indices[${#unparsed_word_indices[@]} - 1]}" ]]; then
                    was_flag_option_terminator_seen=true
                fi
                continue
                ;;
            -*)
                # ${word} is a flag or an option
                # If ${word} is an option, mark that the next word to be parsed is an option value
                local option
                for option in "${repeating_options[@]}" "${non_repeating_options[@]}"; do
                    [[ "${word}" = "${option}" ]] && is_parsing_option_value=true && break
                done

                # Remove ${word} from ${non_repeating_flags} or ${non_repeating_options} so it isn't offered again
                local not_found=true
                local -i index
                for index in "${!non_repeating_flags[@]}"; do
                    if [[ "${non_repeating_flags[${index}]}" = "${word}" ]]; then
                        unset "non_repeating_flags[${index}]"
                        non_repeating_flags=("${non_repeating_flags[@]}")
                        not_found=false
                        break
                    fi
                done
                if "${not_found}"; then
                    for index in "${!non_repeating_flags[@]}"; do
                        if [[ "${non_repeating_flags[${index}]}" = "${word}" ]]; then
                            unset "non_repeating_flags[${index}]"
                            non_repeating_flags=("${non_repeating_flags[@]}")
                            break
                        fi
                    done
                fi
                unset "unparsed_words[${word_index}]"
                continue
                ;;
            esac
        fi

        # ${word} is neither a flag, nor an option, nor an option value
        if [[ "${positional_number}" -lt "${positional_count}" || "${positional_count}" -lt 0 ]]; then
            # ${word} is a positional
            ((positional_number++))
            unset "unparsed_words[${word_index}]"
        else
            if [[ -z "${word}" ]]; then
                # Could be completing a flag, option, or subcommand
                positional_number=-1
            else
                # ${word} is a subcommand or invalid, so stop processing this (sub)command
                positional_number=-2
            fi
            break
        fi
    done

    unparsed_words=("${unparsed_words[@]}")

    if\
        ! "${was_flag_option_terminator_seen}"\
        && ! "${is_parsing_option_value}"\
        && [[ ("${cur}" = -* && "${positional_number}" -ge 0) || "${positional_number}" -eq -1 ]]
    then
        COMPREPLY+=($(compgen -W "${repeating_flags[*]} ${non_repeating_flags[*]} ${repeating_options[*]} ${non_repeating_options[*]}" -- "${cur}"))
    fi
}

__brados_add_completions() {
    local completion
    while IFS='' read -r completion; do
        COMPREPLY+=("${completion}")
    done < <(IFS=$'\n' compgen "${@}" -- "${cur}")
}

# Added by brados: values a custom completion prints (ids from the local caches) are
# data, never code. `compgen -W` would expand $(…), backticks and variables in them,
# so each line is matched as a literal prefix of the current word and inserted quoted.
__brados_add_custom_completions() {
    local completion quoted
    while IFS='' read -r completion; do
        [[ -n "${completion}" && "${completion}" == "${cur}"* ]] || continue
        printf -v quoted '%q' "${completion}"
        COMPREPLY+=("${quoted}")
    done < <(__brados_custom_complete "${@}")
}

__brados_custom_complete() {
    if [[ -n "${cur}" || -z ${COMP_WORDS[${COMP_CWORD}]} || "${COMP_LINE:${COMP_POINT}:1}" != ' ' ]]; then
        local -ar words=("${COMP_WORDS[@]}")
    else
        local -ar words=("${COMP_WORDS[@]::${COMP_CWORD}}" '' "${COMP_WORDS[@]:${COMP_CWORD}}")
    fi

    "${COMP_WORDS[0]}" "${@}" "${words[@]}"
}

_brados() {
    local state
    state="$(shopt -p;shopt -po)"
    trap "${state//$'\n'/;}" RETURN
    shopt -s extglob
    set +o history +o posix

    local -xr SAP_SHELL=bash
    local -x SAP_SHELL_VERSION
    SAP_SHELL_VERSION="$(IFS='.';printf %s "${BASH_VERSINFO[*]}")"
    local -r SAP_SHELL_VERSION

    local -r cur="${2}"
    local -r prev="${3}"

    local -i positional_number
    local -a unparsed_words=("${COMP_WORDS[@]:1:${COMP_CWORD}}")

    local -a repeating_flags=()
    local -a non_repeating_flags=(--version -h --help --offline --json -v --verbose -q --quiet --no-pager)
    local -a repeating_options=()
    local -a non_repeating_options=(--profile --server --credentials-store --log-format)
    __brados_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--profile')
        __brados_add_custom_completions ---completion config list -- --profile "${COMP_CWORD}" "$(__brados_cursor_index_in_current_word)"
        return
        ;;
    '--server')
        return
        ;;
    '--credentials-store')
        __brados_add_completions -W 'auto'$'\n''keyring'$'\n''file'
        return
        ;;
    '--log-format')
        __brados_add_completions -W 'text'$'\n''json'
        return
        ;;
    esac

    # Offer subcommand / subcommand argument completions
    local -r subcommand="${unparsed_words[0]}"
    unset 'unparsed_words[0]'
    unparsed_words=("${unparsed_words[@]}")
    case "${subcommand}" in
    today|search|calendar|auth|config|cache|keys|plugins|sync|doctor|exit-codes|completion|version|mealplan|visits|library|coach|plan|help)
        # Offer subcommand argument completions
        "_brados_${subcommand}"
        ;;
    *)
        # Offer subcommand completions
        COMPREPLY+=($(compgen -W 'today search calendar auth config cache keys plugins sync doctor exit-codes completion version mealplan visits library coach plan help' -- "${cur}"))
        ;;
    esac
}

_brados_today() {
    repeating_flags=()
    non_repeating_flags=(--refresh --offline --json -v --verbose -q --quiet --no-pager --version -h --help)
    repeating_options=()
    non_repeating_options=(--art --profile --server --credentials-store --log-format)
    __brados_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--art')
        __brados_add_completions -W 'auto'$'\n''kitty'$'\n''iterm'$'\n''sixel'$'\n''symbols'$'\n''none'
        return
        ;;
    '--profile')
        __brados_add_custom_completions ---completion today -- --profile "${COMP_CWORD}" "$(__brados_cursor_index_in_current_word)"
        return
        ;;
    '--server')
        return
        ;;
    '--credentials-store')
        __brados_add_completions -W 'auto'$'\n''keyring'$'\n''file'
        return
        ;;
    '--log-format')
        __brados_add_completions -W 'text'$'\n''json'
        return
        ;;
    esac
}

_brados_search() {
    repeating_flags=()
    non_repeating_flags=(--syntax --reindex --offline --json -v --verbose -q --quiet --no-pager --version -h --help)
    repeating_options=(--domain)
    non_repeating_options=(--limit --sort --profile --server --credentials-store --log-format)
    __brados_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '--domain')
        __brados_add_custom_completions ---completion search -- --domain "${COMP_CWORD}" "$(__brados_cursor_index_in_current_word)"
        return
        ;;
    '--limit')
        return
        ;;
    '--sort')
        __brados_add_completions -W 'newest'$'\n''relevance'
        return
        ;;
    '--profile')
        __brados_add_custom_completions ---completion search -- --profile "${COMP_CWORD}" "$(__brados_cursor_index_in_current_word)"
        return
        ;;
    '--server')
        return
        ;;
    '--credentials-store')
        __brados_add_completions -W 'auto'$'\n''keyring'$'\n''file'
        return
        ;;
    '--log-format')
        __brados_add_completions -W 'text'$'\n''json'
        return
        ;;
    esac
}

_brados_calendar() {
    repeating_flags=()
    non_repeating_flags=(--offline --json -v --verbose -q --quiet --no-pager --version -h --help)
    repeating_options=()
    non_repeating_options=(--domains --from --to --output -o --profile --server --credentials-store --log-format)
    __brados_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--domains')
        __brados_add_custom_completions ---completion calendar -- --domains "${COMP_CWORD}" "$(__brados_cursor_index_in_current_word)"
        return
        ;;
    '--from')
        return
        ;;
    '--to')
        return
        ;;
    '--output'|'-o')
        __brados_add_completions -o plusdirs -fX '!*.@(ics)'
        return
        ;;
    '--profile')
        __brados_add_custom_completions ---completion calendar -- --profile "${COMP_CWORD}" "$(__brados_cursor_index_in_current_word)"
        return
        ;;
    '--server')
        return
        ;;
    '--credentials-store')
        __brados_add_completions -W 'auto'$'\n''keyring'$'\n''file'
        return
        ;;
    '--log-format')
        __brados_add_completions -W 'text'$'\n''json'
        return
        ;;
    esac
}

_brados_auth() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=()
    __brados_offer_flags_options 0

    # Offer subcommand / subcommand argument completions
    local -r subcommand="${unparsed_words[0]}"
    unset 'unparsed_words[0]'
    unparsed_words=("${unparsed_words[@]}")
    case "${subcommand}" in
    login|status|switch|migrate|logout)
        # Offer subcommand argument completions
        "_brados_auth_${subcommand}"
        ;;
    *)
        # Offer subcommand completions
        COMPREPLY+=($(compgen -W 'login status switch migrate logout' -- "${cur}"))
        ;;
    esac
}

_brados_auth_login() {
    repeating_flags=()
    non_repeating_flags=(--password-stdin --token-stdin --no-wait --offline --json -v --verbose -q --quiet --no-pager --version -h --help)
    repeating_options=()
    non_repeating_options=(--user --service --code --pin --profile --server --credentials-store --log-format)
    __brados_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--user')
        return
        ;;
    '--service')
        return
        ;;
    '--code')
        return
        ;;
    '--pin')
        return
        ;;
    '--profile')
        __brados_add_custom_completions ---completion auth login -- --profile "${COMP_CWORD}" "$(__brados_cursor_index_in_current_word)"
        return
        ;;
    '--server')
        return
        ;;
    '--credentials-store')
        __brados_add_completions -W 'auto'$'\n''keyring'$'\n''file'
        return
        ;;
    '--log-format')
        __brados_add_completions -W 'text'$'\n''json'
        return
        ;;
    esac
}

_brados_auth_status() {
    repeating_flags=()
    non_repeating_flags=(--check --all --offline --json -v --verbose -q --quiet --no-pager --version -h --help)
    repeating_options=()
    non_repeating_options=(--profile --server --credentials-store --log-format)
    __brados_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--profile')
        __brados_add_custom_completions ---completion auth status -- --profile "${COMP_CWORD}" "$(__brados_cursor_index_in_current_word)"
        return
        ;;
    '--server')
        return
        ;;
    '--credentials-store')
        __brados_add_completions -W 'auto'$'\n''keyring'$'\n''file'
        return
        ;;
    '--log-format')
        __brados_add_completions -W 'text'$'\n''json'
        return
        ;;
    esac
}

_brados_auth_switch() {
    repeating_flags=()
    non_repeating_flags=(--create --offline --json -v --verbose -q --quiet --no-pager --version -h --help)
    repeating_options=()
    non_repeating_options=(--profile --server --credentials-store --log-format)
    __brados_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--profile')
        __brados_add_custom_completions ---completion auth switch -- --profile "${COMP_CWORD}" "$(__brados_cursor_index_in_current_word)"
        return
        ;;
    '--server')
        return
        ;;
    '--credentials-store')
        __brados_add_completions -W 'auto'$'\n''keyring'$'\n''file'
        return
        ;;
    '--log-format')
        __brados_add_completions -W 'text'$'\n''json'
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    1)
        __brados_add_custom_completions ---completion auth switch -- positional@0 "${COMP_CWORD}" "$(__brados_cursor_index_in_current_word)"
        return
        ;;
    esac
}

_brados_auth_migrate() {
    repeating_flags=()
    non_repeating_flags=(--all --offline --json -v --verbose -q --quiet --no-pager --version -h --help)
    repeating_options=()
    non_repeating_options=(--to --profile --server --credentials-store --log-format)
    __brados_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--to')
        __brados_add_completions -W 'keyring'$'\n''file'
        return
        ;;
    '--profile')
        __brados_add_custom_completions ---completion auth migrate -- --profile "${COMP_CWORD}" "$(__brados_cursor_index_in_current_word)"
        return
        ;;
    '--server')
        return
        ;;
    '--credentials-store')
        __brados_add_completions -W 'auto'$'\n''keyring'$'\n''file'
        return
        ;;
    '--log-format')
        __brados_add_completions -W 'text'$'\n''json'
        return
        ;;
    esac
}

_brados_auth_logout() {
    repeating_flags=()
    non_repeating_flags=(--remove-key --discard-pending --keep-key --wait --offline --json -v --verbose -q --quiet --no-pager --version -h --help)
    repeating_options=()
    non_repeating_options=(--profile --server --credentials-store --log-format)
    __brados_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--profile')
        __brados_add_custom_completions ---completion auth logout -- --profile "${COMP_CWORD}" "$(__brados_cursor_index_in_current_word)"
        return
        ;;
    '--server')
        return
        ;;
    '--credentials-store')
        __brados_add_completions -W 'auto'$'\n''keyring'$'\n''file'
        return
        ;;
    '--log-format')
        __brados_add_completions -W 'text'$'\n''json'
        return
        ;;
    esac
}

_brados_config() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=()
    __brados_offer_flags_options 0

    # Offer subcommand / subcommand argument completions
    local -r subcommand="${unparsed_words[0]}"
    unset 'unparsed_words[0]'
    unparsed_words=("${unparsed_words[@]}")
    case "${subcommand}" in
    get|set|unset|list|path)
        # Offer subcommand argument completions
        "_brados_config_${subcommand}"
        ;;
    *)
        # Offer subcommand completions
        COMPREPLY+=($(compgen -W 'get set unset list path' -- "${cur}"))
        ;;
    esac
}

_brados_config_get() {
    repeating_flags=()
    non_repeating_flags=(--offline --json -v --verbose -q --quiet --no-pager --version -h --help)
    repeating_options=()
    non_repeating_options=(--profile --server --credentials-store --log-format)
    __brados_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--profile')
        __brados_add_custom_completions ---completion config get -- --profile "${COMP_CWORD}" "$(__brados_cursor_index_in_current_word)"
        return
        ;;
    '--server')
        return
        ;;
    '--credentials-store')
        __brados_add_completions -W 'auto'$'\n''keyring'$'\n''file'
        return
        ;;
    '--log-format')
        __brados_add_completions -W 'text'$'\n''json'
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    1)
        __brados_add_custom_completions ---completion config get -- positional@0 "${COMP_CWORD}" "$(__brados_cursor_index_in_current_word)"
        return
        ;;
    esac
}

_brados_config_set() {
    repeating_flags=()
    non_repeating_flags=(--offline --json -v --verbose -q --quiet --no-pager --version -h --help)
    repeating_options=()
    non_repeating_options=(--profile --server --credentials-store --log-format)
    __brados_offer_flags_options 2

    # Offer option value completions
    case "${prev}" in
    '--profile')
        __brados_add_custom_completions ---completion config set -- --profile "${COMP_CWORD}" "$(__brados_cursor_index_in_current_word)"
        return
        ;;
    '--server')
        return
        ;;
    '--credentials-store')
        __brados_add_completions -W 'auto'$'\n''keyring'$'\n''file'
        return
        ;;
    '--log-format')
        __brados_add_completions -W 'text'$'\n''json'
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    1)
        __brados_add_custom_completions ---completion config set -- positional@0 "${COMP_CWORD}" "$(__brados_cursor_index_in_current_word)"
        return
        ;;
    2)
        __brados_add_custom_completions ---completion config set -- positional@1 "${COMP_CWORD}" "$(__brados_cursor_index_in_current_word)"
        return
        ;;
    esac
}

_brados_config_unset() {
    repeating_flags=()
    non_repeating_flags=(--offline --json -v --verbose -q --quiet --no-pager --version -h --help)
    repeating_options=()
    non_repeating_options=(--profile --server --credentials-store --log-format)
    __brados_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--profile')
        __brados_add_custom_completions ---completion config unset -- --profile "${COMP_CWORD}" "$(__brados_cursor_index_in_current_word)"
        return
        ;;
    '--server')
        return
        ;;
    '--credentials-store')
        __brados_add_completions -W 'auto'$'\n''keyring'$'\n''file'
        return
        ;;
    '--log-format')
        __brados_add_completions -W 'text'$'\n''json'
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    1)
        __brados_add_custom_completions ---completion config unset -- positional@0 "${COMP_CWORD}" "$(__brados_cursor_index_in_current_word)"
        return
        ;;
    esac
}

_brados_config_list() {
    repeating_flags=()
    non_repeating_flags=(--offline --json -v --verbose -q --quiet --no-pager --version -h --help)
    repeating_options=()
    non_repeating_options=(--profile --server --credentials-store --log-format)
    __brados_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--profile')
        __brados_add_custom_completions ---completion config list -- --profile "${COMP_CWORD}" "$(__brados_cursor_index_in_current_word)"
        return
        ;;
    '--server')
        return
        ;;
    '--credentials-store')
        __brados_add_completions -W 'auto'$'\n''keyring'$'\n''file'
        return
        ;;
    '--log-format')
        __brados_add_completions -W 'text'$'\n''json'
        return
        ;;
    esac
}

_brados_config_path() {
    repeating_flags=()
    non_repeating_flags=(--offline --json -v --verbose -q --quiet --no-pager --version -h --help)
    repeating_options=()
    non_repeating_options=(--profile --server --credentials-store --log-format)
    __brados_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--profile')
        __brados_add_custom_completions ---completion config path -- --profile "${COMP_CWORD}" "$(__brados_cursor_index_in_current_word)"
        return
        ;;
    '--server')
        return
        ;;
    '--credentials-store')
        __brados_add_completions -W 'auto'$'\n''keyring'$'\n''file'
        return
        ;;
    '--log-format')
        __brados_add_completions -W 'text'$'\n''json'
        return
        ;;
    esac
}

_brados_cache() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=()
    __brados_offer_flags_options 0

    # Offer subcommand / subcommand argument completions
    local -r subcommand="${unparsed_words[0]}"
    unset 'unparsed_words[0]'
    unparsed_words=("${unparsed_words[@]}")
    case "${subcommand}" in
    stats|clear|export|import|verify|path)
        # Offer subcommand argument completions
        "_brados_cache_${subcommand}"
        ;;
    *)
        # Offer subcommand completions
        COMPREPLY+=($(compgen -W 'stats clear export import verify path' -- "${cur}"))
        ;;
    esac
}

_brados_cache_stats() {
    repeating_flags=()
    non_repeating_flags=(--offline --json -v --verbose -q --quiet --no-pager --version -h --help)
    repeating_options=()
    non_repeating_options=(--profile --server --credentials-store --log-format)
    __brados_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--profile')
        __brados_add_custom_completions ---completion cache stats -- --profile "${COMP_CWORD}" "$(__brados_cursor_index_in_current_word)"
        return
        ;;
    '--server')
        return
        ;;
    '--credentials-store')
        __brados_add_completions -W 'auto'$'\n''keyring'$'\n''file'
        return
        ;;
    '--log-format')
        __brados_add_completions -W 'text'$'\n''json'
        return
        ;;
    esac
}

_brados_cache_clear() {
    repeating_flags=()
    non_repeating_flags=(--discard-pending --wait --offline --json -v --verbose -q --quiet --no-pager --version -h --help)
    repeating_options=()
    non_repeating_options=(--profile --server --credentials-store --log-format)
    __brados_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '--profile')
        __brados_add_custom_completions ---completion cache clear -- --profile "${COMP_CWORD}" "$(__brados_cursor_index_in_current_word)"
        return
        ;;
    '--server')
        return
        ;;
    '--credentials-store')
        __brados_add_completions -W 'auto'$'\n''keyring'$'\n''file'
        return
        ;;
    '--log-format')
        __brados_add_completions -W 'text'$'\n''json'
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    *)
        __brados_add_custom_completions ---completion cache clear -- positional@0 "${COMP_CWORD}" "$(__brados_cursor_index_in_current_word)"
        return
        ;;
    esac
}

_brados_cache_export() {
    repeating_flags=()
    non_repeating_flags=(--overwrite --with-settings --encrypt --passphrase --passphrase-stdin --armor --offline --json -v --verbose -q --quiet --no-pager --version -h --help)
    repeating_options=(--recipient --recipients-file)
    non_repeating_options=(--output -o --format --level --domains --profile --server --credentials-store --log-format)
    __brados_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--output'|'-o')
        return
        ;;
    '--format')
        return
        ;;
    '--level')
        return
        ;;
    '--domains')
        return
        ;;
    '--recipient')
        return
        ;;
    '--recipients-file')
        __brados_add_completions -f
        return
        ;;
    '--profile')
        __brados_add_custom_completions ---completion cache export -- --profile "${COMP_CWORD}" "$(__brados_cursor_index_in_current_word)"
        return
        ;;
    '--server')
        return
        ;;
    '--credentials-store')
        __brados_add_completions -W 'auto'$'\n''keyring'$'\n''file'
        return
        ;;
    '--log-format')
        __brados_add_completions -W 'text'$'\n''json'
        return
        ;;
    esac
}

_brados_cache_import() {
    repeating_flags=()
    non_repeating_flags=(--replace --merge --dry-run --force --discard-pending --wait --passphrase-stdin --offline --json -v --verbose -q --quiet --no-pager --version -h --help)
    repeating_options=(--identity)
    non_repeating_options=(--as --domains --profile --server --credentials-store --log-format)
    __brados_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--as')
        __brados_add_custom_completions ---completion cache import -- --as "${COMP_CWORD}" "$(__brados_cursor_index_in_current_word)"
        return
        ;;
    '--domains')
        return
        ;;
    '--identity')
        __brados_add_completions -f
        return
        ;;
    '--profile')
        __brados_add_custom_completions ---completion cache import -- --profile "${COMP_CWORD}" "$(__brados_cursor_index_in_current_word)"
        return
        ;;
    '--server')
        return
        ;;
    '--credentials-store')
        __brados_add_completions -W 'auto'$'\n''keyring'$'\n''file'
        return
        ;;
    '--log-format')
        __brados_add_completions -W 'text'$'\n''json'
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    1)
        __brados_add_completions -o plusdirs -fX '!*.@(zst|gz|age)'
        return
        ;;
    esac
}

_brados_cache_verify() {
    repeating_flags=()
    non_repeating_flags=(--passphrase-stdin --offline --json -v --verbose -q --quiet --no-pager --version -h --help)
    repeating_options=(--identity)
    non_repeating_options=(--profile --server --credentials-store --log-format)
    __brados_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--identity')
        __brados_add_completions -f
        return
        ;;
    '--profile')
        __brados_add_custom_completions ---completion cache verify -- --profile "${COMP_CWORD}" "$(__brados_cursor_index_in_current_word)"
        return
        ;;
    '--server')
        return
        ;;
    '--credentials-store')
        __brados_add_completions -W 'auto'$'\n''keyring'$'\n''file'
        return
        ;;
    '--log-format')
        __brados_add_completions -W 'text'$'\n''json'
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    1)
        __brados_add_completions -o plusdirs -fX '!*.@(zst|gz|age)'
        return
        ;;
    esac
}

_brados_cache_path() {
    repeating_flags=()
    non_repeating_flags=(--offline --json -v --verbose -q --quiet --no-pager --version -h --help)
    repeating_options=()
    non_repeating_options=(--profile --server --credentials-store --log-format)
    __brados_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--profile')
        __brados_add_custom_completions ---completion cache path -- --profile "${COMP_CWORD}" "$(__brados_cursor_index_in_current_word)"
        return
        ;;
    '--server')
        return
        ;;
    '--credentials-store')
        __brados_add_completions -W 'auto'$'\n''keyring'$'\n''file'
        return
        ;;
    '--log-format')
        __brados_add_completions -W 'text'$'\n''json'
        return
        ;;
    esac
}

_brados_keys() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=()
    __brados_offer_flags_options 0

    # Offer subcommand / subcommand argument completions
    local -r subcommand="${unparsed_words[0]}"
    unset 'unparsed_words[0]'
    unparsed_words=("${unparsed_words[@]}")
    case "${subcommand}" in
    generate|show)
        # Offer subcommand argument completions
        "_brados_keys_${subcommand}"
        ;;
    *)
        # Offer subcommand completions
        COMPREPLY+=($(compgen -W 'generate show' -- "${cur}"))
        ;;
    esac
}

_brados_keys_generate() {
    repeating_flags=()
    non_repeating_flags=(--force --post-quantum --pq --offline --json -v --verbose -q --quiet --no-pager --version -h --help)
    repeating_options=()
    non_repeating_options=(--profile --server --credentials-store --log-format)
    __brados_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--profile')
        __brados_add_custom_completions ---completion keys generate -- --profile "${COMP_CWORD}" "$(__brados_cursor_index_in_current_word)"
        return
        ;;
    '--server')
        return
        ;;
    '--credentials-store')
        __brados_add_completions -W 'auto'$'\n''keyring'$'\n''file'
        return
        ;;
    '--log-format')
        __brados_add_completions -W 'text'$'\n''json'
        return
        ;;
    esac
}

_brados_keys_show() {
    repeating_flags=()
    non_repeating_flags=(--offline --json -v --verbose -q --quiet --no-pager --version -h --help)
    repeating_options=()
    non_repeating_options=(--profile --server --credentials-store --log-format)
    __brados_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--profile')
        __brados_add_custom_completions ---completion keys show -- --profile "${COMP_CWORD}" "$(__brados_cursor_index_in_current_word)"
        return
        ;;
    '--server')
        return
        ;;
    '--credentials-store')
        __brados_add_completions -W 'auto'$'\n''keyring'$'\n''file'
        return
        ;;
    '--log-format')
        __brados_add_completions -W 'text'$'\n''json'
        return
        ;;
    esac
}

_brados_plugins() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help --offline --json -v --verbose -q --quiet --no-pager)
    repeating_options=()
    non_repeating_options=(--profile --server --credentials-store --log-format)
    __brados_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--profile')
        __brados_add_custom_completions ---completion plugins list -- --profile "${COMP_CWORD}" "$(__brados_cursor_index_in_current_word)"
        return
        ;;
    '--server')
        return
        ;;
    '--credentials-store')
        __brados_add_completions -W 'auto'$'\n''keyring'$'\n''file'
        return
        ;;
    '--log-format')
        __brados_add_completions -W 'text'$'\n''json'
        return
        ;;
    esac

    # Offer subcommand / subcommand argument completions
    local -r subcommand="${unparsed_words[0]}"
    unset 'unparsed_words[0]'
    unparsed_words=("${unparsed_words[@]}")
    case "${subcommand}" in
    list)
        # Offer subcommand argument completions
        "_brados_plugins_${subcommand}"
        ;;
    *)
        # Offer subcommand completions
        COMPREPLY+=($(compgen -W 'list' -- "${cur}"))
        ;;
    esac
}

_brados_plugins_list() {
    repeating_flags=()
    non_repeating_flags=(--offline --json -v --verbose -q --quiet --no-pager --version -h --help)
    repeating_options=()
    non_repeating_options=(--profile --server --credentials-store --log-format)
    __brados_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--profile')
        __brados_add_custom_completions ---completion plugins list -- --profile "${COMP_CWORD}" "$(__brados_cursor_index_in_current_word)"
        return
        ;;
    '--server')
        return
        ;;
    '--credentials-store')
        __brados_add_completions -W 'auto'$'\n''keyring'$'\n''file'
        return
        ;;
    '--log-format')
        __brados_add_completions -W 'text'$'\n''json'
        return
        ;;
    esac
}

_brados_sync() {
    repeating_flags=()
    non_repeating_flags=(--watch --notify --offline --json -v --verbose -q --quiet --no-pager --version -h --help)
    repeating_options=()
    non_repeating_options=(--domains --profile --server --credentials-store --log-format)
    __brados_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '--domains')
        return
        ;;
    '--profile')
        __brados_add_custom_completions ---completion sync -- --profile "${COMP_CWORD}" "$(__brados_cursor_index_in_current_word)"
        return
        ;;
    '--server')
        return
        ;;
    '--credentials-store')
        __brados_add_completions -W 'auto'$'\n''keyring'$'\n''file'
        return
        ;;
    '--log-format')
        __brados_add_completions -W 'text'$'\n''json'
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    *)
        __brados_add_custom_completions ---completion sync -- positional@0 "${COMP_CWORD}" "$(__brados_cursor_index_in_current_word)"
        return
        ;;
    esac
}

_brados_doctor() {
    repeating_flags=()
    non_repeating_flags=(--offline --json -v --verbose -q --quiet --no-pager --version -h --help)
    repeating_options=()
    non_repeating_options=(--profile --server --credentials-store --log-format)
    __brados_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--profile')
        __brados_add_custom_completions ---completion doctor -- --profile "${COMP_CWORD}" "$(__brados_cursor_index_in_current_word)"
        return
        ;;
    '--server')
        return
        ;;
    '--credentials-store')
        __brados_add_completions -W 'auto'$'\n''keyring'$'\n''file'
        return
        ;;
    '--log-format')
        __brados_add_completions -W 'text'$'\n''json'
        return
        ;;
    esac
}

_brados_exit-codes() {
    repeating_flags=()
    non_repeating_flags=(--offline --json -v --verbose -q --quiet --no-pager --version -h --help)
    repeating_options=()
    non_repeating_options=(--format --profile --server --credentials-store --log-format)
    __brados_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--format')
        __brados_add_completions -W 'text'$'\n''markdown'$'\n''mdoc'
        return
        ;;
    '--profile')
        __brados_add_custom_completions ---completion exit-codes -- --profile "${COMP_CWORD}" "$(__brados_cursor_index_in_current_word)"
        return
        ;;
    '--server')
        return
        ;;
    '--credentials-store')
        __brados_add_completions -W 'auto'$'\n''keyring'$'\n''file'
        return
        ;;
    '--log-format')
        __brados_add_completions -W 'text'$'\n''json'
        return
        ;;
    esac
}

_brados_completion() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=()
    __brados_offer_flags_options 1

    # Offer positional completions
    case "${positional_number}" in
    1)
        __brados_add_completions -W 'zsh'$'\n''bash'$'\n''fish'
        return
        ;;
    esac
}

_brados_version() {
    repeating_flags=()
    non_repeating_flags=(--offline --json -v --verbose -q --quiet --no-pager --version -h --help)
    repeating_options=()
    non_repeating_options=(--profile --server --credentials-store --log-format)
    __brados_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--profile')
        __brados_add_custom_completions ---completion version -- --profile "${COMP_CWORD}" "$(__brados_cursor_index_in_current_word)"
        return
        ;;
    '--server')
        return
        ;;
    '--credentials-store')
        __brados_add_completions -W 'auto'$'\n''keyring'$'\n''file'
        return
        ;;
    '--log-format')
        __brados_add_completions -W 'text'$'\n''json'
        return
        ;;
    esac
}

_brados_mealplan() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help --offline --json -v --verbose -q --quiet --no-pager)
    repeating_options=()
    non_repeating_options=(--profile --server --credentials-store --log-format)
    __brados_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--profile')
        __brados_add_custom_completions ---completion mealplan show -- --profile "${COMP_CWORD}" "$(__brados_cursor_index_in_current_word)"
        return
        ;;
    '--server')
        return
        ;;
    '--credentials-store')
        __brados_add_completions -W 'auto'$'\n''keyring'$'\n''file'
        return
        ;;
    '--log-format')
        __brados_add_completions -W 'text'$'\n''json'
        return
        ;;
    esac

    # Offer subcommand / subcommand argument completions
    local -r subcommand="${unparsed_words[0]}"
    unset 'unparsed_words[0]'
    unparsed_words=("${unparsed_words[@]}")
    case "${subcommand}" in
    show|today|refresh|new|critique|finalize|status|path)
        # Offer subcommand argument completions
        "_brados_mealplan_${subcommand}"
        ;;
    *)
        # Offer subcommand completions
        COMPREPLY+=($(compgen -W 'show today refresh new critique finalize status path' -- "${cur}"))
        ;;
    esac
}

_brados_mealplan_show() {
    repeating_flags=()
    non_repeating_flags=(--offline --json -v --verbose -q --quiet --no-pager --version -h --help)
    repeating_options=()
    non_repeating_options=(--profile --server --credentials-store --log-format)
    __brados_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--profile')
        __brados_add_custom_completions ---completion mealplan show -- --profile "${COMP_CWORD}" "$(__brados_cursor_index_in_current_word)"
        return
        ;;
    '--server')
        return
        ;;
    '--credentials-store')
        __brados_add_completions -W 'auto'$'\n''keyring'$'\n''file'
        return
        ;;
    '--log-format')
        __brados_add_completions -W 'text'$'\n''json'
        return
        ;;
    esac
}

_brados_mealplan_today() {
    repeating_flags=()
    non_repeating_flags=(--offline --json -v --verbose -q --quiet --no-pager --version -h --help)
    repeating_options=()
    non_repeating_options=(--profile --server --credentials-store --log-format)
    __brados_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--profile')
        __brados_add_custom_completions ---completion mealplan today -- --profile "${COMP_CWORD}" "$(__brados_cursor_index_in_current_word)"
        return
        ;;
    '--server')
        return
        ;;
    '--credentials-store')
        __brados_add_completions -W 'auto'$'\n''keyring'$'\n''file'
        return
        ;;
    '--log-format')
        __brados_add_completions -W 'text'$'\n''json'
        return
        ;;
    esac
}

_brados_mealplan_refresh() {
    repeating_flags=()
    non_repeating_flags=(--offline --json -v --verbose -q --quiet --no-pager --version -h --help)
    repeating_options=()
    non_repeating_options=(--profile --server --credentials-store --log-format)
    __brados_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--profile')
        __brados_add_custom_completions ---completion mealplan refresh -- --profile "${COMP_CWORD}" "$(__brados_cursor_index_in_current_word)"
        return
        ;;
    '--server')
        return
        ;;
    '--credentials-store')
        __brados_add_completions -W 'auto'$'\n''keyring'$'\n''file'
        return
        ;;
    '--log-format')
        __brados_add_completions -W 'text'$'\n''json'
        return
        ;;
    esac
}

_brados_mealplan_new() {
    repeating_flags=()
    non_repeating_flags=(--offline --json -v --verbose -q --quiet --no-pager --version -h --help)
    repeating_options=()
    non_repeating_options=(--profile --server --credentials-store --log-format)
    __brados_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--profile')
        __brados_add_custom_completions ---completion mealplan new -- --profile "${COMP_CWORD}" "$(__brados_cursor_index_in_current_word)"
        return
        ;;
    '--server')
        return
        ;;
    '--credentials-store')
        __brados_add_completions -W 'auto'$'\n''keyring'$'\n''file'
        return
        ;;
    '--log-format')
        __brados_add_completions -W 'text'$'\n''json'
        return
        ;;
    esac
}

_brados_mealplan_critique() {
    repeating_flags=()
    non_repeating_flags=(--offline --json -v --verbose -q --quiet --no-pager --version -h --help)
    repeating_options=()
    non_repeating_options=(--profile --server --credentials-store --log-format)
    __brados_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--profile')
        __brados_add_custom_completions ---completion mealplan critique -- --profile "${COMP_CWORD}" "$(__brados_cursor_index_in_current_word)"
        return
        ;;
    '--server')
        return
        ;;
    '--credentials-store')
        __brados_add_completions -W 'auto'$'\n''keyring'$'\n''file'
        return
        ;;
    '--log-format')
        __brados_add_completions -W 'text'$'\n''json'
        return
        ;;
    esac
}

_brados_mealplan_finalize() {
    repeating_flags=()
    non_repeating_flags=(--offline --json -v --verbose -q --quiet --no-pager --version -h --help)
    repeating_options=()
    non_repeating_options=(--profile --server --credentials-store --log-format)
    __brados_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--profile')
        __brados_add_custom_completions ---completion mealplan finalize -- --profile "${COMP_CWORD}" "$(__brados_cursor_index_in_current_word)"
        return
        ;;
    '--server')
        return
        ;;
    '--credentials-store')
        __brados_add_completions -W 'auto'$'\n''keyring'$'\n''file'
        return
        ;;
    '--log-format')
        __brados_add_completions -W 'text'$'\n''json'
        return
        ;;
    esac
}

_brados_mealplan_status() {
    repeating_flags=()
    non_repeating_flags=(--offline --json -v --verbose -q --quiet --no-pager --version -h --help)
    repeating_options=()
    non_repeating_options=(--profile --server --credentials-store --log-format)
    __brados_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--profile')
        __brados_add_custom_completions ---completion mealplan status -- --profile "${COMP_CWORD}" "$(__brados_cursor_index_in_current_word)"
        return
        ;;
    '--server')
        return
        ;;
    '--credentials-store')
        __brados_add_completions -W 'auto'$'\n''keyring'$'\n''file'
        return
        ;;
    '--log-format')
        __brados_add_completions -W 'text'$'\n''json'
        return
        ;;
    esac
}

_brados_mealplan_path() {
    repeating_flags=()
    non_repeating_flags=(--offline --json -v --verbose -q --quiet --no-pager --version -h --help)
    repeating_options=()
    non_repeating_options=(--profile --server --credentials-store --log-format)
    __brados_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--profile')
        __brados_add_custom_completions ---completion mealplan path -- --profile "${COMP_CWORD}" "$(__brados_cursor_index_in_current_word)"
        return
        ;;
    '--server')
        return
        ;;
    '--credentials-store')
        __brados_add_completions -W 'auto'$'\n''keyring'$'\n''file'
        return
        ;;
    '--log-format')
        __brados_add_completions -W 'text'$'\n''json'
        return
        ;;
    esac
}

_brados_visits() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help --refresh --offline --json -v --verbose -q --quiet --no-pager)
    repeating_options=()
    non_repeating_options=(--profile --server --credentials-store --log-format)
    __brados_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--profile')
        __brados_add_custom_completions ---completion visits list -- --profile "${COMP_CWORD}" "$(__brados_cursor_index_in_current_word)"
        return
        ;;
    '--server')
        return
        ;;
    '--credentials-store')
        __brados_add_completions -W 'auto'$'\n''keyring'$'\n''file'
        return
        ;;
    '--log-format')
        __brados_add_completions -W 'text'$'\n''json'
        return
        ;;
    esac

    # Offer subcommand / subcommand argument completions
    local -r subcommand="${unparsed_words[0]}"
    unset 'unparsed_words[0]'
    unparsed_words=("${unparsed_words[@]}")
    case "${subcommand}" in
    list|show|add|delete)
        # Offer subcommand argument completions
        "_brados_visits_${subcommand}"
        ;;
    *)
        # Offer subcommand completions
        COMPREPLY+=($(compgen -W 'list show add delete' -- "${cur}"))
        ;;
    esac
}

_brados_visits_list() {
    repeating_flags=()
    non_repeating_flags=(--refresh --offline --json -v --verbose -q --quiet --no-pager --version -h --help)
    repeating_options=()
    non_repeating_options=(--profile --server --credentials-store --log-format)
    __brados_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--profile')
        __brados_add_custom_completions ---completion visits list -- --profile "${COMP_CWORD}" "$(__brados_cursor_index_in_current_word)"
        return
        ;;
    '--server')
        return
        ;;
    '--credentials-store')
        __brados_add_completions -W 'auto'$'\n''keyring'$'\n''file'
        return
        ;;
    '--log-format')
        __brados_add_completions -W 'text'$'\n''json'
        return
        ;;
    esac
}

_brados_visits_show() {
    repeating_flags=()
    non_repeating_flags=(--offline --json -v --verbose -q --quiet --no-pager --version -h --help)
    repeating_options=()
    non_repeating_options=(--profile --server --credentials-store --log-format)
    __brados_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--profile')
        __brados_add_custom_completions ---completion visits show -- --profile "${COMP_CWORD}" "$(__brados_cursor_index_in_current_word)"
        return
        ;;
    '--server')
        return
        ;;
    '--credentials-store')
        __brados_add_completions -W 'auto'$'\n''keyring'$'\n''file'
        return
        ;;
    '--log-format')
        __brados_add_completions -W 'text'$'\n''json'
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    1)
        __brados_add_custom_completions ---completion visits show -- positional@0 "${COMP_CWORD}" "$(__brados_cursor_index_in_current_word)"
        return
        ;;
    esac
}

_brados_visits_add() {
    repeating_flags=()
    non_repeating_flags=(--offline --json -v --verbose -q --quiet --no-pager --version -h --help)
    repeating_options=()
    non_repeating_options=(--place --at --duration --notes --address --profile --server --credentials-store --log-format)
    __brados_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--place')
        return
        ;;
    '--at')
        return
        ;;
    '--duration')
        return
        ;;
    '--notes')
        return
        ;;
    '--address')
        return
        ;;
    '--profile')
        __brados_add_custom_completions ---completion visits add -- --profile "${COMP_CWORD}" "$(__brados_cursor_index_in_current_word)"
        return
        ;;
    '--server')
        return
        ;;
    '--credentials-store')
        __brados_add_completions -W 'auto'$'\n''keyring'$'\n''file'
        return
        ;;
    '--log-format')
        __brados_add_completions -W 'text'$'\n''json'
        return
        ;;
    esac
}

_brados_visits_delete() {
    repeating_flags=()
    non_repeating_flags=(--offline --json -v --verbose -q --quiet --no-pager --version -h --help)
    repeating_options=()
    non_repeating_options=(--profile --server --credentials-store --log-format)
    __brados_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--profile')
        __brados_add_custom_completions ---completion visits delete -- --profile "${COMP_CWORD}" "$(__brados_cursor_index_in_current_word)"
        return
        ;;
    '--server')
        return
        ;;
    '--credentials-store')
        __brados_add_completions -W 'auto'$'\n''keyring'$'\n''file'
        return
        ;;
    '--log-format')
        __brados_add_completions -W 'text'$'\n''json'
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    1)
        __brados_add_custom_completions ---completion visits delete -- positional@0 "${COMP_CWORD}" "$(__brados_cursor_index_in_current_word)"
        return
        ;;
    esac
}

_brados_library() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help --refresh --full --prefetch --covers --offline --json -v --verbose -q --quiet --no-pager)
    repeating_options=()
    non_repeating_options=(--section --limit --offset --art --rows --columns --profile --server --credentials-store --log-format)
    __brados_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--section')
        return
        ;;
    '--limit')
        return
        ;;
    '--offset')
        return
        ;;
    '--art')
        __brados_add_completions -W 'auto'$'\n''kitty'$'\n''iterm'$'\n''sixel'$'\n''symbols'$'\n''none'
        return
        ;;
    '--rows')
        return
        ;;
    '--columns')
        return
        ;;
    '--profile')
        __brados_add_custom_completions ---completion library albums -- --profile "${COMP_CWORD}" "$(__brados_cursor_index_in_current_word)"
        return
        ;;
    '--server')
        return
        ;;
    '--credentials-store')
        __brados_add_completions -W 'auto'$'\n''keyring'$'\n''file'
        return
        ;;
    '--log-format')
        __brados_add_completions -W 'text'$'\n''json'
        return
        ;;
    esac

    # Offer subcommand / subcommand argument completions
    local -r subcommand="${unparsed_words[0]}"
    unset 'unparsed_words[0]'
    unparsed_words=("${unparsed_words[@]}")
    case "${subcommand}" in
    albums|collections|sections|show|artwork|prefetch|servers|use|cache)
        # Offer subcommand argument completions
        "_brados_library_${subcommand}"
        ;;
    *)
        # Offer subcommand completions
        COMPREPLY+=($(compgen -W 'albums collections sections show artwork prefetch servers use cache' -- "${cur}"))
        ;;
    esac
}

_brados_library_albums() {
    repeating_flags=()
    non_repeating_flags=(--refresh --full --prefetch --covers --offline --json -v --verbose -q --quiet --no-pager --version -h --help)
    repeating_options=()
    non_repeating_options=(--section --limit --offset --art --rows --columns --profile --server --credentials-store --log-format)
    __brados_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--section')
        return
        ;;
    '--limit')
        return
        ;;
    '--offset')
        return
        ;;
    '--art')
        __brados_add_completions -W 'auto'$'\n''kitty'$'\n''iterm'$'\n''sixel'$'\n''symbols'$'\n''none'
        return
        ;;
    '--rows')
        return
        ;;
    '--columns')
        return
        ;;
    '--profile')
        __brados_add_custom_completions ---completion library albums -- --profile "${COMP_CWORD}" "$(__brados_cursor_index_in_current_word)"
        return
        ;;
    '--server')
        return
        ;;
    '--credentials-store')
        __brados_add_completions -W 'auto'$'\n''keyring'$'\n''file'
        return
        ;;
    '--log-format')
        __brados_add_completions -W 'text'$'\n''json'
        return
        ;;
    esac
}

_brados_library_collections() {
    repeating_flags=()
    non_repeating_flags=(--covers --offline --json -v --verbose -q --quiet --no-pager --version -h --help)
    repeating_options=()
    non_repeating_options=(--section --art --profile --server --credentials-store --log-format)
    __brados_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--section')
        return
        ;;
    '--art')
        __brados_add_completions -W 'auto'$'\n''kitty'$'\n''iterm'$'\n''sixel'$'\n''symbols'$'\n''none'
        return
        ;;
    '--profile')
        __brados_add_custom_completions ---completion library collections -- --profile "${COMP_CWORD}" "$(__brados_cursor_index_in_current_word)"
        return
        ;;
    '--server')
        return
        ;;
    '--credentials-store')
        __brados_add_completions -W 'auto'$'\n''keyring'$'\n''file'
        return
        ;;
    '--log-format')
        __brados_add_completions -W 'text'$'\n''json'
        return
        ;;
    esac
}

_brados_library_sections() {
    repeating_flags=()
    non_repeating_flags=(--offline --json -v --verbose -q --quiet --no-pager --version -h --help)
    repeating_options=()
    non_repeating_options=(--profile --server --credentials-store --log-format)
    __brados_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--profile')
        __brados_add_custom_completions ---completion library sections -- --profile "${COMP_CWORD}" "$(__brados_cursor_index_in_current_word)"
        return
        ;;
    '--server')
        return
        ;;
    '--credentials-store')
        __brados_add_completions -W 'auto'$'\n''keyring'$'\n''file'
        return
        ;;
    '--log-format')
        __brados_add_completions -W 'text'$'\n''json'
        return
        ;;
    esac
}

_brados_library_show() {
    repeating_flags=()
    non_repeating_flags=(--offline --json -v --verbose -q --quiet --no-pager --version -h --help)
    repeating_options=()
    non_repeating_options=(--art --profile --server --credentials-store --log-format)
    __brados_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--art')
        __brados_add_completions -W 'auto'$'\n''kitty'$'\n''iterm'$'\n''sixel'$'\n''symbols'$'\n''none'
        return
        ;;
    '--profile')
        __brados_add_custom_completions ---completion library show -- --profile "${COMP_CWORD}" "$(__brados_cursor_index_in_current_word)"
        return
        ;;
    '--server')
        return
        ;;
    '--credentials-store')
        __brados_add_completions -W 'auto'$'\n''keyring'$'\n''file'
        return
        ;;
    '--log-format')
        __brados_add_completions -W 'text'$'\n''json'
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    1)
        __brados_add_custom_completions ---completion library show -- positional@0 "${COMP_CWORD}" "$(__brados_cursor_index_in_current_word)"
        return
        ;;
    esac
}

_brados_library_artwork() {
    repeating_flags=()
    non_repeating_flags=(--offline --json -v --verbose -q --quiet --no-pager --version -h --help)
    repeating_options=()
    non_repeating_options=(--size --output -o --profile --server --credentials-store --log-format)
    __brados_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--size')
        __brados_add_completions -W '1024'$'\n''2048'
        return
        ;;
    '--output'|'-o')
        return
        ;;
    '--profile')
        __brados_add_custom_completions ---completion library artwork -- --profile "${COMP_CWORD}" "$(__brados_cursor_index_in_current_word)"
        return
        ;;
    '--server')
        return
        ;;
    '--credentials-store')
        __brados_add_completions -W 'auto'$'\n''keyring'$'\n''file'
        return
        ;;
    '--log-format')
        __brados_add_completions -W 'text'$'\n''json'
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    1)
        __brados_add_custom_completions ---completion library artwork -- positional@0 "${COMP_CWORD}" "$(__brados_cursor_index_in_current_word)"
        return
        ;;
    esac
}

_brados_library_prefetch() {
    repeating_flags=()
    non_repeating_flags=(--collections --background --offline --json -v --verbose -q --quiet --no-pager --version -h --help)
    repeating_options=()
    non_repeating_options=(--section --rows --columns --profile --server --credentials-store --log-format)
    __brados_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--section')
        return
        ;;
    '--rows')
        return
        ;;
    '--columns')
        return
        ;;
    '--profile')
        __brados_add_custom_completions ---completion library prefetch -- --profile "${COMP_CWORD}" "$(__brados_cursor_index_in_current_word)"
        return
        ;;
    '--server')
        return
        ;;
    '--credentials-store')
        __brados_add_completions -W 'auto'$'\n''keyring'$'\n''file'
        return
        ;;
    '--log-format')
        __brados_add_completions -W 'text'$'\n''json'
        return
        ;;
    esac
}

_brados_library_servers() {
    repeating_flags=()
    non_repeating_flags=(--offline --json -v --verbose -q --quiet --no-pager --version -h --help)
    repeating_options=()
    non_repeating_options=(--profile --server --credentials-store --log-format)
    __brados_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--profile')
        __brados_add_custom_completions ---completion library servers -- --profile "${COMP_CWORD}" "$(__brados_cursor_index_in_current_word)"
        return
        ;;
    '--server')
        return
        ;;
    '--credentials-store')
        __brados_add_completions -W 'auto'$'\n''keyring'$'\n''file'
        return
        ;;
    '--log-format')
        __brados_add_completions -W 'text'$'\n''json'
        return
        ;;
    esac
}

_brados_library_use() {
    repeating_flags=()
    non_repeating_flags=(--offline --json -v --verbose -q --quiet --no-pager --version -h --help)
    repeating_options=()
    non_repeating_options=(--profile --server --credentials-store --log-format)
    __brados_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--profile')
        __brados_add_custom_completions ---completion library use -- --profile "${COMP_CWORD}" "$(__brados_cursor_index_in_current_word)"
        return
        ;;
    '--server')
        return
        ;;
    '--credentials-store')
        __brados_add_completions -W 'auto'$'\n''keyring'$'\n''file'
        return
        ;;
    '--log-format')
        __brados_add_completions -W 'text'$'\n''json'
        return
        ;;
    esac
}

_brados_library_cache() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=()
    __brados_offer_flags_options 0

    # Offer subcommand / subcommand argument completions
    local -r subcommand="${unparsed_words[0]}"
    unset 'unparsed_words[0]'
    unparsed_words=("${unparsed_words[@]}")
    case "${subcommand}" in
    stats|prune)
        # Offer subcommand argument completions
        "_brados_library_cache_${subcommand}"
        ;;
    *)
        # Offer subcommand completions
        COMPREPLY+=($(compgen -W 'stats prune' -- "${cur}"))
        ;;
    esac
}

_brados_library_cache_stats() {
    repeating_flags=()
    non_repeating_flags=(--offline --json -v --verbose -q --quiet --no-pager --version -h --help)
    repeating_options=()
    non_repeating_options=(--profile --server --credentials-store --log-format)
    __brados_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--profile')
        __brados_add_custom_completions ---completion library cache stats -- --profile "${COMP_CWORD}" "$(__brados_cursor_index_in_current_word)"
        return
        ;;
    '--server')
        return
        ;;
    '--credentials-store')
        __brados_add_completions -W 'auto'$'\n''keyring'$'\n''file'
        return
        ;;
    '--log-format')
        __brados_add_completions -W 'text'$'\n''json'
        return
        ;;
    esac
}

_brados_library_cache_prune() {
    repeating_flags=()
    non_repeating_flags=(--offline --json -v --verbose -q --quiet --no-pager --version -h --help)
    repeating_options=()
    non_repeating_options=(--max-size --profile --server --credentials-store --log-format)
    __brados_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--max-size')
        return
        ;;
    '--profile')
        __brados_add_custom_completions ---completion library cache prune -- --profile "${COMP_CWORD}" "$(__brados_cursor_index_in_current_word)"
        return
        ;;
    '--server')
        return
        ;;
    '--credentials-store')
        __brados_add_completions -W 'auto'$'\n''keyring'$'\n''file'
        return
        ;;
    '--log-format')
        __brados_add_completions -W 'text'$'\n''json'
        return
        ;;
    esac
}

_brados_coach() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help --full --offline --json -v --verbose -q --quiet --no-pager)
    repeating_options=()
    non_repeating_options=(--limit --profile --server --credentials-store --log-format)
    __brados_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--limit')
        return
        ;;
    '--profile')
        __brados_add_custom_completions ---completion coach conversations -- --profile "${COMP_CWORD}" "$(__brados_cursor_index_in_current_word)"
        return
        ;;
    '--server')
        return
        ;;
    '--credentials-store')
        __brados_add_completions -W 'auto'$'\n''keyring'$'\n''file'
        return
        ;;
    '--log-format')
        __brados_add_completions -W 'text'$'\n''json'
        return
        ;;
    esac

    # Offer subcommand / subcommand argument completions
    local -r subcommand="${unparsed_words[0]}"
    unset 'unparsed_words[0]'
    unparsed_words=("${unparsed_words[@]}")
    case "${subcommand}" in
    conversations|show|delete|context)
        # Offer subcommand argument completions
        "_brados_coach_${subcommand}"
        ;;
    *)
        # Offer subcommand completions
        COMPREPLY+=($(compgen -W 'conversations show delete context' -- "${cur}"))
        ;;
    esac
}

_brados_coach_conversations() {
    repeating_flags=()
    non_repeating_flags=(--full --offline --json -v --verbose -q --quiet --no-pager --version -h --help)
    repeating_options=()
    non_repeating_options=(--limit --profile --server --credentials-store --log-format)
    __brados_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--limit')
        return
        ;;
    '--profile')
        __brados_add_custom_completions ---completion coach conversations -- --profile "${COMP_CWORD}" "$(__brados_cursor_index_in_current_word)"
        return
        ;;
    '--server')
        return
        ;;
    '--credentials-store')
        __brados_add_completions -W 'auto'$'\n''keyring'$'\n''file'
        return
        ;;
    '--log-format')
        __brados_add_completions -W 'text'$'\n''json'
        return
        ;;
    esac
}

_brados_coach_show() {
    repeating_flags=()
    non_repeating_flags=(--full -f --follow --offline --json -v --verbose -q --quiet --no-pager --version -h --help)
    repeating_options=()
    non_repeating_options=(--last --message --profile --server --credentials-store --log-format)
    __brados_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--last')
        return
        ;;
    '--message')
        return
        ;;
    '--profile')
        __brados_add_custom_completions ---completion coach show -- --profile "${COMP_CWORD}" "$(__brados_cursor_index_in_current_word)"
        return
        ;;
    '--server')
        return
        ;;
    '--credentials-store')
        __brados_add_completions -W 'auto'$'\n''keyring'$'\n''file'
        return
        ;;
    '--log-format')
        __brados_add_completions -W 'text'$'\n''json'
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    1)
        __brados_add_custom_completions ---completion coach show -- positional@0 "${COMP_CWORD}" "$(__brados_cursor_index_in_current_word)"
        return
        ;;
    esac
}

_brados_coach_delete() {
    repeating_flags=()
    non_repeating_flags=(-y --yes --offline --json -v --verbose -q --quiet --no-pager --version -h --help)
    repeating_options=()
    non_repeating_options=(--profile --server --credentials-store --log-format)
    __brados_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--profile')
        __brados_add_custom_completions ---completion coach delete -- --profile "${COMP_CWORD}" "$(__brados_cursor_index_in_current_word)"
        return
        ;;
    '--server')
        return
        ;;
    '--credentials-store')
        __brados_add_completions -W 'auto'$'\n''keyring'$'\n''file'
        return
        ;;
    '--log-format')
        __brados_add_completions -W 'text'$'\n''json'
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    1)
        __brados_add_custom_completions ---completion coach delete -- positional@0 "${COMP_CWORD}" "$(__brados_cursor_index_in_current_word)"
        return
        ;;
    esac
}

_brados_coach_context() {
    repeating_flags=()
    non_repeating_flags=(--refresh --offline --json -v --verbose -q --quiet --no-pager --version -h --help)
    repeating_options=()
    non_repeating_options=(--profile --server --credentials-store --log-format)
    __brados_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--profile')
        __brados_add_custom_completions ---completion coach context -- --profile "${COMP_CWORD}" "$(__brados_cursor_index_in_current_word)"
        return
        ;;
    '--server')
        return
        ;;
    '--credentials-store')
        __brados_add_completions -W 'auto'$'\n''keyring'$'\n''file'
        return
        ;;
    '--log-format')
        __brados_add_completions -W 'text'$'\n''json'
        return
        ;;
    esac
}

_brados_plan() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help --offline --json -v --verbose -q --quiet --no-pager)
    repeating_options=()
    non_repeating_options=(--art --profile --server --credentials-store --log-format)
    __brados_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--art')
        __brados_add_completions -W 'auto'$'\n''kitty'$'\n''iterm'$'\n''sixel'$'\n''symbols'$'\n''none'
        return
        ;;
    '--profile')
        __brados_add_custom_completions ---completion plan show -- --profile "${COMP_CWORD}" "$(__brados_cursor_index_in_current_word)"
        return
        ;;
    '--server')
        return
        ;;
    '--credentials-store')
        __brados_add_completions -W 'auto'$'\n''keyring'$'\n''file'
        return
        ;;
    '--log-format')
        __brados_add_completions -W 'text'$'\n''json'
        return
        ;;
    esac

    # Offer subcommand / subcommand argument completions
    local -r subcommand="${unparsed_words[0]}"
    unset 'unparsed_words[0]'
    unparsed_words=("${unparsed_words[@]}")
    case "${subcommand}" in
    show|targets|why|recompute|refresh|weight|set|history|diff|pending|sync)
        # Offer subcommand argument completions
        "_brados_plan_${subcommand}"
        ;;
    *)
        # Offer subcommand completions
        COMPREPLY+=($(compgen -W 'show targets why recompute refresh weight set history diff pending sync' -- "${cur}"))
        ;;
    esac
}

_brados_plan_show() {
    repeating_flags=()
    non_repeating_flags=(--offline --json -v --verbose -q --quiet --no-pager --version -h --help)
    repeating_options=()
    non_repeating_options=(--art --profile --server --credentials-store --log-format)
    __brados_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--art')
        __brados_add_completions -W 'auto'$'\n''kitty'$'\n''iterm'$'\n''sixel'$'\n''symbols'$'\n''none'
        return
        ;;
    '--profile')
        __brados_add_custom_completions ---completion plan show -- --profile "${COMP_CWORD}" "$(__brados_cursor_index_in_current_word)"
        return
        ;;
    '--server')
        return
        ;;
    '--credentials-store')
        __brados_add_completions -W 'auto'$'\n''keyring'$'\n''file'
        return
        ;;
    '--log-format')
        __brados_add_completions -W 'text'$'\n''json'
        return
        ;;
    esac
}

_brados_plan_targets() {
    repeating_flags=()
    non_repeating_flags=(--offline --json -v --verbose -q --quiet --no-pager --version -h --help)
    repeating_options=()
    non_repeating_options=(--profile --server --credentials-store --log-format)
    __brados_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--profile')
        __brados_add_custom_completions ---completion plan targets -- --profile "${COMP_CWORD}" "$(__brados_cursor_index_in_current_word)"
        return
        ;;
    '--server')
        return
        ;;
    '--credentials-store')
        __brados_add_completions -W 'auto'$'\n''keyring'$'\n''file'
        return
        ;;
    '--log-format')
        __brados_add_completions -W 'text'$'\n''json'
        return
        ;;
    esac
}

_brados_plan_why() {
    repeating_flags=()
    non_repeating_flags=(--offline --json -v --verbose -q --quiet --no-pager --version -h --help)
    repeating_options=()
    non_repeating_options=(--profile --server --credentials-store --log-format)
    __brados_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--profile')
        __brados_add_custom_completions ---completion plan why -- --profile "${COMP_CWORD}" "$(__brados_cursor_index_in_current_word)"
        return
        ;;
    '--server')
        return
        ;;
    '--credentials-store')
        __brados_add_completions -W 'auto'$'\n''keyring'$'\n''file'
        return
        ;;
    '--log-format')
        __brados_add_completions -W 'text'$'\n''json'
        return
        ;;
    esac
}

_brados_plan_recompute() {
    repeating_flags=()
    non_repeating_flags=(--offline --json -v --verbose -q --quiet --no-pager --version -h --help)
    repeating_options=()
    non_repeating_options=(--profile --server --credentials-store --log-format)
    __brados_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--profile')
        __brados_add_custom_completions ---completion plan recompute -- --profile "${COMP_CWORD}" "$(__brados_cursor_index_in_current_word)"
        return
        ;;
    '--server')
        return
        ;;
    '--credentials-store')
        __brados_add_completions -W 'auto'$'\n''keyring'$'\n''file'
        return
        ;;
    '--log-format')
        __brados_add_completions -W 'text'$'\n''json'
        return
        ;;
    esac
}

_brados_plan_refresh() {
    repeating_flags=()
    non_repeating_flags=(--offline --json -v --verbose -q --quiet --no-pager --version -h --help)
    repeating_options=()
    non_repeating_options=(--profile --server --credentials-store --log-format)
    __brados_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--profile')
        __brados_add_custom_completions ---completion plan refresh -- --profile "${COMP_CWORD}" "$(__brados_cursor_index_in_current_word)"
        return
        ;;
    '--server')
        return
        ;;
    '--credentials-store')
        __brados_add_completions -W 'auto'$'\n''keyring'$'\n''file'
        return
        ;;
    '--log-format')
        __brados_add_completions -W 'text'$'\n''json'
        return
        ;;
    esac
}

_brados_plan_weight() {
    repeating_flags=()
    non_repeating_flags=(--yes -y --offline --json -v --verbose -q --quiet --no-pager --version -h --help)
    repeating_options=()
    non_repeating_options=(--profile --server --credentials-store --log-format)
    __brados_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '--profile')
        __brados_add_custom_completions ---completion plan weight -- --profile "${COMP_CWORD}" "$(__brados_cursor_index_in_current_word)"
        return
        ;;
    '--server')
        return
        ;;
    '--credentials-store')
        __brados_add_completions -W 'auto'$'\n''keyring'$'\n''file'
        return
        ;;
    '--log-format')
        __brados_add_completions -W 'text'$'\n''json'
        return
        ;;
    esac
}

_brados_plan_set() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=()
    __brados_offer_flags_options 0

    # Offer subcommand / subcommand argument completions
    local -r subcommand="${unparsed_words[0]}"
    unset 'unparsed_words[0]'
    unparsed_words=("${unparsed_words[@]}")
    case "${subcommand}" in
    target-weight|goal|activity)
        # Offer subcommand argument completions
        "_brados_plan_set_${subcommand}"
        ;;
    *)
        # Offer subcommand completions
        COMPREPLY+=($(compgen -W 'target-weight goal activity' -- "${cur}"))
        ;;
    esac
}

_brados_plan_set_target-weight() {
    repeating_flags=()
    non_repeating_flags=(--offline --json -v --verbose -q --quiet --no-pager --version -h --help)
    repeating_options=()
    non_repeating_options=(--profile --server --credentials-store --log-format)
    __brados_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '--profile')
        __brados_add_custom_completions ---completion plan set target-weight -- --profile "${COMP_CWORD}" "$(__brados_cursor_index_in_current_word)"
        return
        ;;
    '--server')
        return
        ;;
    '--credentials-store')
        __brados_add_completions -W 'auto'$'\n''keyring'$'\n''file'
        return
        ;;
    '--log-format')
        __brados_add_completions -W 'text'$'\n''json'
        return
        ;;
    esac
}

_brados_plan_set_goal() {
    repeating_flags=()
    non_repeating_flags=(--offline --json -v --verbose -q --quiet --no-pager --version -h --help)
    repeating_options=()
    non_repeating_options=(--profile --server --credentials-store --log-format)
    __brados_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--profile')
        __brados_add_custom_completions ---completion plan set goal -- --profile "${COMP_CWORD}" "$(__brados_cursor_index_in_current_word)"
        return
        ;;
    '--server')
        return
        ;;
    '--credentials-store')
        __brados_add_completions -W 'auto'$'\n''keyring'$'\n''file'
        return
        ;;
    '--log-format')
        __brados_add_completions -W 'text'$'\n''json'
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    1)
        __brados_add_completions -W 'lose_weight'$'\n''maintain'$'\n''gain_muscle'
        return
        ;;
    esac
}

_brados_plan_set_activity() {
    repeating_flags=()
    non_repeating_flags=(--offline --json -v --verbose -q --quiet --no-pager --version -h --help)
    repeating_options=()
    non_repeating_options=(--profile --server --credentials-store --log-format)
    __brados_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--profile')
        __brados_add_custom_completions ---completion plan set activity -- --profile "${COMP_CWORD}" "$(__brados_cursor_index_in_current_word)"
        return
        ;;
    '--server')
        return
        ;;
    '--credentials-store')
        __brados_add_completions -W 'auto'$'\n''keyring'$'\n''file'
        return
        ;;
    '--log-format')
        __brados_add_completions -W 'text'$'\n''json'
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    1)
        __brados_add_completions -W 'sedentary'$'\n''lightly_active'$'\n''moderately_active'$'\n''very_active'$'\n''extremely_active'
        return
        ;;
    esac
}

_brados_plan_history() {
    repeating_flags=()
    non_repeating_flags=(--plans --offline --json -v --verbose -q --quiet --no-pager --version -h --help)
    repeating_options=()
    non_repeating_options=(--profile --server --credentials-store --log-format)
    __brados_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--profile')
        __brados_add_custom_completions ---completion plan history -- --profile "${COMP_CWORD}" "$(__brados_cursor_index_in_current_word)"
        return
        ;;
    '--server')
        return
        ;;
    '--credentials-store')
        __brados_add_completions -W 'auto'$'\n''keyring'$'\n''file'
        return
        ;;
    '--log-format')
        __brados_add_completions -W 'text'$'\n''json'
        return
        ;;
    esac
}

_brados_plan_diff() {
    repeating_flags=()
    non_repeating_flags=(--offline --json -v --verbose -q --quiet --no-pager --version -h --help)
    repeating_options=()
    non_repeating_options=(--profile --server --credentials-store --log-format)
    __brados_offer_flags_options 2

    # Offer option value completions
    case "${prev}" in
    '--profile')
        __brados_add_custom_completions ---completion plan diff -- --profile "${COMP_CWORD}" "$(__brados_cursor_index_in_current_word)"
        return
        ;;
    '--server')
        return
        ;;
    '--credentials-store')
        __brados_add_completions -W 'auto'$'\n''keyring'$'\n''file'
        return
        ;;
    '--log-format')
        __brados_add_completions -W 'text'$'\n''json'
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    1)
        __brados_add_custom_completions ---completion plan diff -- positional@0 "${COMP_CWORD}" "$(__brados_cursor_index_in_current_word)"
        return
        ;;
    2)
        __brados_add_custom_completions ---completion plan diff -- positional@1 "${COMP_CWORD}" "$(__brados_cursor_index_in_current_word)"
        return
        ;;
    esac
}

_brados_plan_pending() {
    repeating_flags=()
    non_repeating_flags=(--offline --json -v --verbose -q --quiet --no-pager --version -h --help)
    repeating_options=()
    non_repeating_options=(--profile --server --credentials-store --log-format)
    __brados_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--profile')
        __brados_add_custom_completions ---completion plan pending -- --profile "${COMP_CWORD}" "$(__brados_cursor_index_in_current_word)"
        return
        ;;
    '--server')
        return
        ;;
    '--credentials-store')
        __brados_add_completions -W 'auto'$'\n''keyring'$'\n''file'
        return
        ;;
    '--log-format')
        __brados_add_completions -W 'text'$'\n''json'
        return
        ;;
    esac
}

_brados_plan_sync() {
    repeating_flags=()
    non_repeating_flags=(--include-imported --offline --json -v --verbose -q --quiet --no-pager --version -h --help)
    repeating_options=(--include-imported-from)
    non_repeating_options=(--profile --server --credentials-store --log-format)
    __brados_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--include-imported-from')
        return
        ;;
    '--profile')
        __brados_add_custom_completions ---completion plan sync -- --profile "${COMP_CWORD}" "$(__brados_cursor_index_in_current_word)"
        return
        ;;
    '--server')
        return
        ;;
    '--credentials-store')
        __brados_add_completions -W 'auto'$'\n''keyring'$'\n''file'
        return
        ;;
    '--log-format')
        __brados_add_completions -W 'text'$'\n''json'
        return
        ;;
    esac
}

_brados_help() {
    repeating_flags=()
    non_repeating_flags=(--version)
    repeating_options=()
    non_repeating_options=()
    __brados_offer_flags_options -1
}

complete -o filenames -F _brados brados
