# vim: the `vim` executable, terminal only, with the huge feature set
# (terminal, channels/jobs, netbeans, ...) but without GUI, X11, gpm,
# libcanberra, libsodium, SELinux, NLS and language interfaces.
SRCPKG=vim
BINARY=src/vim
corpus_build() {
    ./configure CC="$CC_PLAIN" --with-features=huge --enable-gui=no --without-x \
        --disable-nls --disable-gpm --disable-sysmouse --disable-selinux \
        --disable-canberra --disable-libsodium --disable-xsmp --with-tlib=ncurses \
        --disable-perlinterp --disable-pythoninterp --disable-python3interp \
        --disable-rubyinterp --disable-luainterp --disable-tclinterp
    make -C src -j"$JOBS" CC="$CC" vim
}
