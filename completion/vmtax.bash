# bash completion for vmtax(1)
#
# The words come from vmtax itself: 'vmtax --complete WHAT' for commands,
# --set keys and values, workloads, shipped configs and a run's axes, and
# 'vmtax COMMAND --help' for options, so the completion follows the vmtax it
# completes (installed or a build tree's).

# _vmtax_arg N: the Nth argument after the subcommand that is not an option
# or an option's value (options taking a value are those of _vmtax_takes).
_vmtax_takes='--out|-o|--set|-s|--resume|-r|--format|-f|--output|--rows|--cols|--by|--threshold|--kind|-k|--mirror|--suite|--uri|--state-dir'
_vmtax_arg()
{
	local i n=0 skip=
	for ((i = _vmtax_ci + 1; i < COMP_CWORD; i++)); do
		if [[ -n $skip ]]; then
			skip=
			continue
		fi
		case ${COMP_WORDS[i]} in
		=) skip=1 ;;
		-*) [[ ${COMP_WORDS[i]} == @($_vmtax_takes) ]] && skip=1 ;;
		*)
			((n++ == $1)) && { printf '%s\n' "${COMP_WORDS[i]}"; return; }
			;;
		esac
	done
}

_vmtax()
{
	local vmtax=${COMP_WORDS[0]} cur=${COMP_WORDS[COMP_CWORD]}
	local prev=${COMP_WORDS[COMP_CWORD - 1]} cmd= key= i _vmtax_ci=0
	local IFS=$'\n'
	COMPREPLY=()

	for ((i = 1; i < COMP_CWORD; i++)); do
		case ${COMP_WORDS[i]} in
		-*) ;;
		*) cmd=${COMP_WORDS[i]}; _vmtax_ci=$i; break ;;
		esac
	done
	if [[ -z $cmd ]]; then
		COMPREPLY=($(compgen -W "$("$vmtax" --complete commands 2>/dev/null)
help
--help
--quiet
--verbose
--version" -- "$cur"))
		return
	fi

	# --set SECTION.KEY=VALUE: '=' is a word of its own (COMP_WORDBREAKS).
	if [[ $cur == = ]]; then
		key=$prev cur=
	elif [[ $prev == = ]]; then
		key=${COMP_WORDS[COMP_CWORD - 2]}
	fi
	if [[ -n $key ]]; then
		COMPREPLY=($(compgen -W "$("$vmtax" --complete values "$key" 2>/dev/null)" -- "$cur"))
		return
	fi

	case $prev in
	--set | -s)
		case $cmd in
		run) i=$(_vmtax_arg 0) ;;
		lab) i=$(_vmtax_arg 1) ;;
		*) return ;;
		esac
		COMPREPLY=($(compgen -W "$("$vmtax" --complete keys "$i" 2>/dev/null)" -- "$cur"))
		compopt -o nospace 2>/dev/null
		COMPREPLY=("${COMPREPLY[@]/%/=}")
		return
		;;
	--by | --rows | --cols)
		COMPREPLY=($(compgen -W "$("$vmtax" --complete axes "$(_vmtax_arg 0)" 2>/dev/null)" -- "$cur"))
		return
		;;
	--format | -f)
		COMPREPLY=($(compgen -W "$("$vmtax" --complete formats 2>/dev/null)" -- "$cur"))
		return
		;;
	--kind | -k)
		COMPREPLY=($(compgen -W $'tiny\ndebian\nlab' -- "$cur"))
		return
		;;
	--out | -o | --output | --resume | -r | --state-dir)
		COMPREPLY=($(compgen -d -- "$cur"))
		return
		;;
	--mirror | --suite | --uri)
		return
		;;
	esac

	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$("$vmtax" "$cmd" --help 2>/dev/null |
			grep -o -- '--[a-z][a-z-]*' | sort -u)" -- "$cur"))
		return
	fi

	case $cmd in
	help)
		[[ -z $(_vmtax_arg 0) ]] &&
			COMPREPLY=($(compgen -W "$("$vmtax" --complete commands 2>/dev/null)" -- "$cur"))
		;;
	run)
		COMPREPLY=($(compgen -W "$("$vmtax" --complete configs 2>/dev/null)" -- "$cur")
			$(compgen -f -X '!*.ini' -- "$cur") $(compgen -d -- "$cur"))
		;;
	lab)
		case $(_vmtax_arg 0) in
		'') COMPREPLY=($(compgen -W $'run\nup' -- "$cur")) ;;
		run | up)
			COMPREPLY=($(compgen -W "$("$vmtax" --complete configs 2>/dev/null)" -- "$cur")
				$(compgen -f -X '!*.ini' -- "$cur") $(compgen -d -- "$cur"))
			;;
		esac
		;;
	report | compare)
		COMPREPLY=($(compgen -d -- "$cur") $(compgen -f -X '!*.json' -- "$cur"))
		;;
	workloads)
		COMPREPLY=($(compgen -d -- "$cur"))
		;;
	host)
		[[ -z $(_vmtax_arg 0) ]] &&
			COMPREPLY=($(compgen -W $'probe\nrestore' -- "$cur"))
		;;
	image)
		case $(_vmtax_arg 0) in
		'') COMPREPLY=($(compgen -W $'build\npath' -- "$cur")) ;;
		path) COMPREPLY=($(compgen -W $'kernel\nvmlinuz\ninitrd\ndisk' -- "$cur")) ;;
		esac
		;;
	esac
}
complete -F _vmtax vmtax
