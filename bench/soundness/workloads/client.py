"""The network half of the server workloads (bench/soundness/corpus.sh), on 127.0.0.1 only.

    python3 client.py memcached PORT      set, get, gets/cas, incr, append, delete, stats; then shutdown
    python3 client.py http PORT           GET, HEAD, ranges, a 404, a directory listing, gzip where built in, keep-alive

Waits up to 20 s for the server to listen; exit 1 when an answer is not what it should be.
"""
import socket
import sys
import time


def connect(port: int) -> socket.socket:
    for _ in range(200):
        try:
            return socket.create_connection(("127.0.0.1", port), timeout=10)
        except OSError:
            time.sleep(0.1)
    sys.exit(f"nothing listens on 127.0.0.1:{port}")


def memcached(port: int) -> None:
    s = connect(port)
    f = s.makefile("rwb")

    def ask(cmd: bytes, lines: int = 1) -> list[bytes]:
        f.write(cmd)
        f.flush()
        return [f.readline().rstrip(b"\r\n") for _ in range(lines)]

    assert ask(b"set a 5 0 3\r\nabc\r\n") == [b"STORED"]
    assert ask(b"get a\r\n", 3) == [b"VALUE a 5 3", b"abc", b"END"]
    for i in range(300):
        assert ask(b"set k%d 0 0 %d\r\n%s\r\n" % (i, len(str(i * i)), str(i * i).encode())) == [b"STORED"]
    assert ask(b"get k7 k12\r\n", 5) == [b"VALUE k7 0 2", b"49", b"VALUE k12 0 3", b"144", b"END"]
    assert ask(b"set n 0 0 1\r\n5\r\n") == [b"STORED"] and ask(b"incr n 37\r\n") == [b"42"]
    assert ask(b"append a 0 0 2\r\nde\r\n") == [b"STORED"]
    cas = ask(b"gets a\r\n", 3)[0].split()[-1]
    assert ask(b"cas a 0 0 1 " + cas + b"\r\nz\r\n") == [b"STORED"]
    assert ask(b"delete k3\r\n") == [b"DELETED"] and ask(b"get k3\r\n") == [b"END"]
    f.write(b"stats\r\n")
    f.flush()
    while f.readline().rstrip(b"\r\n") != b"END":
        pass
    f.write(b"shutdown\r\n")
    f.flush()
    print("memcached answers as expected")


def http(port: int) -> None:
    s = connect(port)
    f = s.makefile("rwb")

    def get(path: str, method: str = "GET", headers: str = "") -> tuple[bytes, dict, bytes]:
        f.write(f"{method} {path} HTTP/1.1\r\nHost: localhost\r\n{headers}\r\n".encode())
        f.flush()
        status = f.readline().rstrip(b"\r\n")
        head = {}
        while (line := f.readline().rstrip(b"\r\n")):
            k, v = line.split(b":", 1)
            head[k.strip().lower()] = v.strip()
        body = b""
        if method != "HEAD":
            if head.get(b"transfer-encoding") == b"chunked":
                while (n := int(f.readline().strip(), 16)):
                    body += f.read(n)
                    f.readline()
                f.readline()
            else:
                body = f.read(int(head.get(b"content-length", b"0")))
        return status, head, body

    assert get("/a.txt")[2] == b"".join(b"%d\n" % i for i in range(1, 2001))
    assert get("/a.txt", "HEAD")[1][b"content-length"] == b"%d" % sum(len(b"%d\n" % i) for i in range(1, 2001))
    assert get("/a.txt", headers="Range: bytes=2-5\r\n")[2] == b"2\n3\n"
    assert get("/none.txt")[0].split()[1] == b"404"
    assert b"b.txt" in get("/d/")[2]
    _, head, body = get("/a.txt", headers="Accept-Encoding: gzip\r\n")
    if head.get(b"content-encoding") == b"gzip":     # servers built with a gzip module
        import gzip
        body = gzip.decompress(body)
    assert body.startswith(b"1\n2\n")
    print("the server answers as expected")


if __name__ == "__main__":
    {"memcached": memcached, "http": http}[sys.argv[1]](int(sys.argv[2]))
