# tmux: the `tmux` executable (libevent and ncurses are shared libraries, outside the
# bitcode).  Not in build.sh's default PROGRAMS; most of its control flow is libevent
# callbacks (event_set, bufferevent_new, evtimer_set), the case of issue 19's
# "library callback registration".
SRCPKG=tmux
BINARY=tmux
corpus_build() {
    [ -x configure ] || autoreconf -fi
    ./configure CC="$CC_PLAIN" --disable-utf8proc --disable-systemd
    make -j"$JOBS" CC="$CC" tmux
}
