# btop: the `btop` system monitor, C++20 (the STL throughout, std::thread, std::atomic,
# ranges, fmt-style formatting written by hand), its own Makefile.  Not in build.sh's default
# PROGRAMS; a C++ program the front end was not written against.
SRCPKG=btop
BINARY=bin/btop
corpus_build() {
    make -j"$JOBS" CXX="$CXX" OPTFLAGS="$CXXFLAGS" ADDFLAGS="$CXXFLAGS" STATIC= GPU_SUPPORT=false
}
