# python3.11: the `python` interpreter with a static libpython3.11.a and the
# built-in modules of Modules/Setup.bootstrap; no shared extension modules
# (`make python` stops before them), no ensurepip, no test modules.  The
# build also compiles and runs _bootstrap_python and _freeze_module to freeze
# the standard modules it embeds.
SRCPKG=python3.11
BINARY=python
corpus_build() {
    ./configure CC="$CC_PLAIN" OPT="-DNDEBUG" --without-ensurepip \
        --disable-test-modules
    make -j"$JOBS" CC="$CC" python
}
