# nginx: the `nginx` server core with its default static modules (http, the
# event loop on epoll), without PCRE, zlib and TLS.  Not in build.sh's default
# PROGRAMS; a server of its own allocator (ngx_pool_t, ngx_palloc) and module
# tables of function pointers (ngx_module_t, ngx_command_t.set).
SRCPKG=nginx
BINARY=objs/nginx
corpus_build() {
    ./configure --with-cc="$CC_PLAIN" --without-pcre --without-http_rewrite_module \
        --without-http_gzip_module
    make -j"$JOBS" CC="$CC" -f objs/Makefile
}
