# What the tmux tests share, sourced after tests/tap.sh: a skip without tmux, a private
# tmux server whose environment keeps everything in $tmp, and the helpers that start
# the program in a pane, capture the pane and poll it.

if ! command -v tmux >/dev/null 2>&1; then
   echo "1..0 # SKIP tmux not installed"
   exit 0
fi

# the panes start in their own directory: absolute paths
case $bin in /*) ;; *) bin=$(pwd)/$bin ;; esac
case $src in /*) ;; *) src=$(cd "$src" && pwd) ;; esac

# a private server, its environment this one's: nothing lands in $HOME
export XDG_DATA_HOME="$tmp/data" XDG_STATE_HOME="$tmp/state" XDG_CONFIG_HOME="$tmp/config" LANG=C.UTF-8
unset LC_ALL TMUX
socket=ptui-test-$$
tm() {
   tmux -L "$socket" -f /dev/null "$@"
}
batchpid=
cleanup() {
   tm kill-server 2>/dev/null
   rm -f "${TMUX_TMPDIR:-/tmp}/tmux-$(id -u)/$socket"   # the server leaves its socket
   if [ -n "$batchpid" ]; then kill "$batchpid" 2>/dev/null; fi
   rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' HUP INT TERM

# start NAME COLSxROWS ARGS...: pruner-tui ARGS in a new session; when it ends, its exit
# status and the terminal's settings stay on the pane
start() {
   name=$1 cols=${2%x*} rows=${2#*x}; shift 2
   cmd="'$bin'"
   for a in "$@"; do cmd="$cmd '$a'"; done
   tm new-session -d -s "$name" -x "$cols" -y "$rows" -c "$tmp" "$cmd; echo EXIT=\$?; stty -a; sleep 600"
}

# capture NAME: the pane as text in $tmp/screen (wrapped lines joined, trailing blanks cut)
capture() {
   tm capture-pane -p -J -t "$1" | sed 's/ *$//' >"$tmp/screen"
}

# poll NAME SECONDS COMMAND...: captures the pane every 0.1 s until COMMAND (which reads
# $tmp/screen) succeeds; false when SECONDS pass first
poll() {
   name=$1 end=$(($(date +%s) + $2)); shift 2
   while :; do
      capture "$name"
      "$@" && return 0
      [ "$(date +%s)" -ge "$end" ] && return 1
      sleep 0.1
   done
}

shows() {   # shows REGEX: a line of the screen matches the extended regex
   grep -Eq -- "$1" "$tmp/screen"
}

last_row_is() {   # last_row_is TEXT: the console row (the last) reads TEXT
   [ "$(tail -n1 "$tmp/screen")" = "$1" ]
}
