# lua5.4: the stand-alone interpreter `lua`: src/lua.c with the whole core and
# standard library (every src/*.c but luac.c), Linux flags, no readline.
# Debian patches src/Makefile to build shared libraries through libtool, so
# the recipe compiles the files directly, as upstream's `make linux` would,
# after writing the one header debian/rules generates.
SRCPKG=lua5.4
BINARY=src/lua
corpus_build() {
    cd src
    # normally written by debian/rules, included by Debian's luaconf.h
    echo "#define DEB_HOST_MULTIARCH \"$(dpkg-architecture -qDEB_HOST_MULTIARCH)\"" \
        > lua5.4-deb-multiarch.h
    ls ./*.c | grep -v '^./luac\.c$' | xargs -P "$JOBS" -I{} \
        $CC $CORPUS_CFLAGS -Wall -DLUA_COMPAT_5_3 -DLUA_USE_LINUX -c {}
    $CC -o lua ./*.o -Wl,-E -lm -ldl
}
