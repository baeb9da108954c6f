#!/usr/bin/env python3
"""A small HTTP(S) server for gitwire's tests and benchmarks: the real `git http-backend` (CGI)
behind Python's standard library, bound to loopback only, stopping by itself.

Routes (ROOT is --root, a folder of repositories):
  /git/<repo>/...        smart HTTP through git http-backend (GIT_HTTP_EXPORT_ALL)
  /auth/<repo>/...       the same behind basic auth (--user NAME:PASSWORD)
  /redirect/<rest>       301 to /git/<rest> (query kept)
  /authpost/<repo>/...   smart HTTP, the discovery GET open, every POST behind basic auth (--user)
  /cross/<host:port>/<rest>
                         302 to http(s)://<host:port>/<rest> (query kept): another origin
  /cross-userinfo/<host:port>/<rest>
                         the same with user information in the Location (--location-user)
  /authcross/<host:port>/<rest>
                         basic auth (--user), then the same 302 as /cross/
  /dumb/<repo>/...       static files only: a dumb-HTTP server
  /status/<code>/...     answers <code> with a short text body
  /hostile/<kind>/...    misbehaves (tests of hostile servers): redirect-loop, garbage,
                         truncated, stall, html-post, huge-header, no-flush, control-text;
                         and, before the repository's path:
    gzip-bomb-post/<filler>/<MiB>/<repo>   smart HTTP, but each POST (with keepalive, each fetch
                         request) is answered with Content-Encoding: gzip and a body that
                         expands to <MiB> MiB of <filler>
    gzip-bomb-advertisement/<filler>/<MiB>/<repo>   the real advertisement followed by <MiB>
                         MiB of <filler>, all gzip-encoded; POSTs served normally
    gzip-bomb-refs/<MiB>/<repo>   the real v0 advertisement (upload-pack's or, when asked,
                         receive-pack's) with <MiB> MiB of ref lines before its closing flush,
                         all gzip-encoded: an enormous advertisement
        fillers: flush ("0000" packets), keepalive ("packfile" then empty band-1 packets),
                 ref (one ref line over and over, then a flush), zero (NUL bytes)
    trickle/<seconds>/<repo>   the real v0 advertisement one packet every <seconds>, then
                         one more made-up ref every <seconds>, never ending
  anything else          404
A request for an absolute http:// URL (the server used as an HTTP proxy) is served as the same
path asked directly, and logged as PROXY <url>.

Prints the port it listens on (one line; or writes it to --port-file) once it accepts
connections; --log records each request's method, path, git headers and status (with --log-framing,
how its body came and whether an Authorization header came, yes or no; never credentials,
unless --log-authorization asks for the Authorization header each request carried, decoded, which
tests of hostile servers use to see which credentials reached which origin; --log-header NAME adds
every value of header NAME each request carried, which tests of http.extraHeader use to see which
headers reached which origin, and Proxy-Authorization shows, decoded, which proxy credentials
came). Responses from
http-backend are streamed with chunked transfer encoding; connections are kept alive.
"""
import argparse
import base64
import os
import shutil
import socket
import ssl
import subprocess
import sys
import threading
import time
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "gitwire-test-http/1"

    def log_request(self, code="-", size="-"):
        if not self.server.log:
            return
        status = getattr(code, "value", code)
        line = "%s %s encoding=%s protocol=%s agent=%s status=%s" % (
            self.command, self.path, self.headers.get("Content-Encoding", "-"),
            self.headers.get("Git-Protocol", "-"), self.headers.get("User-Agent", "-"), status)
        if self.server.log_authorization:
            line += " authorization=%s host=%s" % (self.decoded_authorization(), self.headers.get("Host", "-"))
        if self.server.log_framing:
            line += " body=%s authorization=%s" % (getattr(self, "framing", "none"), "yes" if self.headers.get("Authorization") else "no")
        for name in self.server.log_headers:
            values = self.headers.get_all(name) or []
            if name.lower() == "proxy-authorization":
                values = [self.decoded(value) for value in values]
            line += " %s=[%s]" % (name, "|".join(values))
        with self.server.log_lock:
            self.server.log.write(line + "\n")
            self.server.log.flush()

    def log_message(self, format, *args):
        pass

    @staticmethod
    def decoded(value):
        """A Basic credential's user:password, or the header as sent."""
        scheme, _, token = value.partition(" ")
        if scheme.lower() != "basic":
            return value
        try:
            return base64.b64decode(token).decode("utf-8", "replace")
        except ValueError:
            return value

    def decoded_authorization(self):
        value = self.headers.get("Authorization")
        if value is None:
            return "-"
        scheme, _, data = value.partition(" ")
        if scheme.lower() == "basic":
            try:
                return "basic:" + base64.b64decode(data).decode("utf-8", "replace")
            except ValueError:
                return "basic:?"
        return scheme.lower() + ":" + data

    def authorized(self):
        expected = "Basic " + base64.b64encode(self.server.credentials.encode()).decode()
        if self.headers.get("Authorization") == expected:
            return True
        self.send_text(401, "authentication required\n", [("WWW-Authenticate", 'Basic realm="gitwire"')])
        return False

    def redirect_elsewhere(self, rest, query, userinfo=""):
        # rest is /<host:port>/<path>: the new origin, then the path there.
        _, origin, path = rest.split("/", 2)
        scheme = "https" if self.server.secure else "http"
        target = "%s://%s%s/%s%s" % (scheme, userinfo, origin, path, "?" + query if query else "")
        self.send_text(302, "elsewhere\n", [("Location", target)])

    def do_GET(self):
        self.route()

    def do_POST(self):
        self.route()

    def send_text(self, status, text, headers=()):
        body = text.encode()
        self.send_response(status)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def read_body(self):
        body = self.read_framed_body()
        if self.framing == "length" and body == b"0000":
            self.framing = "flush"
        return body

    def read_framed_body(self):
        length = self.headers.get("Content-Length")
        self.framing = "none"
        if length is not None:
            self.framing = "length"
            return self.rfile.read(int(length))
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            self.framing = "chunked"
            data = b""
            while True:
                size = int(self.rfile.readline().strip().split(b";")[0], 16)
                if size == 0:
                    self.rfile.readline()
                    return data
                data += self.rfile.read(size)
                self.rfile.readline()
        return b""

    def route(self):
        self.framing = "none"
        target = self.path
        if target.startswith("http://"):
            # A request for an absolute URL: this server is being used as an HTTP proxy (tests of
            # http_proxy); serve it as if it had been asked directly.
            target = "/" + target[len("http://"):].partition("/")[2]
            if self.server.log:
                self.server.log.write("PROXY %s\n" % self.path)
                self.server.log.flush()
        path, _, query = target.partition("?")
        parts = path.split("/", 2)
        area = parts[1] if len(parts) > 1 else ""
        rest = "/" + parts[2] if len(parts) > 2 else "/"
        body = self.read_body() if self.command == "POST" else b""
        if area == "git":
            self.backend(rest, query, body)
        elif area == "auth":
            if self.authorized():
                self.backend(rest, query, body, user=self.server.credentials.split(":")[0])
        elif area == "authpost":
            if self.command != "POST" or self.authorized():
                self.backend(rest, query, body, user=self.server.credentials.split(":")[0])
        elif area == "cross":
            self.redirect_elsewhere(rest, query)
        elif area == "cross-userinfo":
            self.redirect_elsewhere(rest, query, userinfo=self.server.location_user + "@")
        elif area == "authcross":
            if self.authorized():
                self.redirect_elsewhere(rest, query)
        elif area == "redirect":
            target = "/git" + rest + ("?" + query if query else "")
            self.send_text(301, "moved\n", [("Location", target)])
        elif area == "dumb":
            self.static(rest)
        elif area == "hostile":
            self.hostile(rest.strip("/").split("/")[0], rest, query, body)
        elif area == "status":
            code = int(rest.strip("/").split("/")[0] or "500")
            self.send_text(code, "the test server answers %d here\n" % code)
        else:
            self.send_text(404, "not found\n")

    def hostile(self, kind, rest, query, body):
        advertisement = "application/x-git-upload-pack-advertisement"
        if kind == "redirect-loop":
            self.send_text(302, "again\n", [("Location", self.path)])
        elif kind == "garbage":
            self.send_raw(200, advertisement, b"zzzz this is not a pkt-line\n")
        elif kind == "truncated":
            # A preamble, then a packet that promises more bytes than come, then the connection ends.
            self.send_raw(200, advertisement, b"001e# service=git-upload-pack\n0000" + b"0100abc", close=True)
        elif kind == "no-flush":
            self.send_raw(200, advertisement, b"001e# service=git-upload-pack\n")
        elif kind == "stall":
            self.send_response(200)
            self.send_header("Content-Type", advertisement)
            self.send_header("Content-Length", "1000")
            self.end_headers()
            self.wfile.write(b"001e# service=git-upload-pack\n0000")
            self.wfile.flush()
            time.sleep(30)
        elif kind == "html-post":
            if self.command == "POST":
                self.send_raw(200, "text/html", b"<html>no</html>\n")
            else:
                self.backend("/" + rest.strip("/").split("/", 1)[1], query, body)
        elif kind == "huge-header":
            self.send_response(200)
            self.send_header("Content-Type", advertisement)
            self.send_header("X-Filler", "x" * (2 << 20))
            self.send_header("Content-Length", "0")
            self.end_headers()
        elif kind == "control-text":
            self.send_text(500, "\x1b]0;TITLE\x07\x1b[31mred\x1b[0m\rover\u009b2Jcsi\n")
        elif kind in ("gzip-bomb-post", "gzip-bomb-advertisement"):
            _, filler, size, repo = rest.strip("/").split("/", 3)
            mebibytes = int(size)
            plain = zlib.decompress(body, 47) if body.startswith(b"\x1f\x8b") else body
            fetching = b"command=fetch" in plain or b"want " in plain
            if (kind == "gzip-bomb-post") == (self.command == "POST") and (filler != "keepalive" or fetching):
                prefix = b""
                content_type = "application/x-git-upload-pack-result"
                if kind == "gzip-bomb-advertisement":
                    status, headers, prefix = self.backend_output("/" + repo, query, body)
                    content_type = dict((name.lower(), value) for name, value in headers).get(
                        "content-type", advertisement)
                self.send_gzip_bomb(content_type, prefix, filler, mebibytes)
            else:
                self.backend("/" + repo, query, body)
        elif kind == "gzip-bomb-refs":
            _, size, repo = rest.strip("/").split("/", 2)
            if self.command == "GET":
                _, _, data = self.backend_output("/" + repo, query, body, protocol=False)
                content_type = advertisement
                if "service=git-receive-pack" in query:
                    content_type = "application/x-git-receive-pack-advertisement"
                self.send_gzip_bomb(content_type, data[:-4], "ref", int(size))
            else:
                self.backend("/" + repo, query, body)
        elif kind == "trickle":
            _, seconds, repo = rest.strip("/").split("/", 2)
            self.trickle("/" + repo, query, float(seconds))
        else:
            self.send_text(404, "no such hostile kind\n")

    FILLERS = {
        "flush": (b"", b"0000", b""),
        "keepalive": (b"000dpackfile\n", b"0005\x01", b""),
        "ref": (b"", b"%04x%s refs/heads/bomb-ref-with-a-longer-name\n" % (84, b"1" * 40), b"0000"),
        "zero": (b"", b"\0", b""),
    }
    bombs = {}
    bombs_lock = threading.Lock()

    def send_gzip_bomb(self, content_type, prefix, filler, mebibytes):
        """Answers 200 with Content-Encoding: gzip: `prefix`, then the filler's own start and its
        unit repeated to `mebibytes` MiB, compressed at level 9 (about 1,000 to 1); each body is
        made once and kept."""
        key = (prefix, filler, mebibytes)
        with Handler.bombs_lock:
            body = Handler.bombs.get(key)
            if body is None:
                start, unit, end = self.FILLERS[filler]
                compressor = zlib.compressobj(9, zlib.DEFLATED, 31)
                block = (unit * (65536 // len(unit) + 1))[:65536 // len(unit) * len(unit)]
                parts = [compressor.compress(prefix + start)]
                produced = 0
                while produced < mebibytes << 20:
                    parts.append(compressor.compress(block))
                    produced += len(block)
                parts.append(compressor.compress(end))
                parts.append(compressor.flush())
                body = b"".join(parts)
                Handler.bombs[key] = body
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        try:
            self.wfile.write(body)
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True

    def trickle(self, rest, query, seconds):
        """The real v0 advertisement, one packet every `seconds`, then a made-up ref every
        `seconds` for as long as the client reads: a server that never finishes."""
        _, _, data = self.backend_output(rest, query, b"", protocol=False)
        packets = []
        while data:
            length = int(data[:4], 16)
            packets.append(data[:max(length, 4)])
            data = data[max(length, 4):]
        oid = next((p[4:44] for p in packets[2:] if len(p) > 44), b"0" * 40)
        self.send_response(200)
        self.send_header("Content-Type", "application/x-git-upload-pack-advertisement")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        try:
            for packet in packets[:-1]:
                self.wfile.write(b"%x\r\n%s\r\n" % (len(packet), packet))
                self.wfile.flush()
                time.sleep(seconds)
            number = 0
            while True:
                line = oid + b" refs/heads/trickle-%d\n" % number
                packet = b"%04x" % (len(line) + 4) + line
                self.wfile.write(b"%x\r\n%s\r\n" % (len(packet), packet))
                self.wfile.flush()
                number += 1
                time.sleep(seconds)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True

    def send_raw(self, status, content_type, data, close=False):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        if close:
            self.send_header("Connection", "close")
            self.send_header("Content-Length", str(len(data) + 1000))
        else:
            self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
        self.wfile.flush()
        if close:
            self.close_connection = True

    def static(self, rest):
        target = os.path.realpath(os.path.join(self.server.root, rest.lstrip("/")))
        if not target.startswith(os.path.realpath(self.server.root) + os.sep) or not os.path.isfile(target):
            self.send_text(404, "not found\n")
            return
        with open(target, "rb") as handle:
            data = handle.read()
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def backend_process(self, rest, query, body, user=None, protocol=True):
        environment = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "GIT_PROJECT_ROOT": self.server.root,
            "GIT_HTTP_EXPORT_ALL": "1",
            "GATEWAY_INTERFACE": "CGI/1.1",
            "SERVER_PROTOCOL": "HTTP/1.1",
            "REQUEST_METHOD": self.command,
            "PATH_INFO": rest,
            "QUERY_STRING": query,
            "CONTENT_TYPE": self.headers.get("Content-Type", ""),
            "CONTENT_LENGTH": str(len(body)),
            "REMOTE_ADDR": self.client_address[0],
            "HOME": self.server.root,
        }
        for header in ("Git-Protocol", "Content-Encoding", "Accept-Encoding") if protocol else ():
            value = self.headers.get(header)
            if value is not None:
                environment["HTTP_" + header.upper().replace("-", "_")] = value
        if user:
            environment["REMOTE_USER"] = user
        return subprocess.Popen(
            [self.server.git, "http-backend"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=environment)

    def backend_output(self, rest, query, body, protocol=True):
        """What http-backend answers, whole: (status, headers, body)."""
        process = self.backend_process(rest, query, body, protocol=protocol)
        output, _ = process.communicate(body)
        head, _, data = output.partition(b"\r\n\r\n")
        status = 200
        headers = []
        for line in head.decode("latin-1").split("\r\n"):
            name, _, value = line.partition(":")
            if name.lower() == "status":
                status = int(value.strip().split()[0])
            elif name:
                headers.append((name, value.strip()))
        return status, headers, data

    def backend(self, rest, query, body, user=None):
        process = self.backend_process(rest, query, body, user)
        writer = threading.Thread(target=self.feed, args=(process, body))
        writer.start()
        status = 200
        headers = []
        while True:
            line = process.stdout.readline()
            if line in (b"\r\n", b"\n", b""):
                break
            name, _, value = line.decode("latin-1").rstrip("\r\n").partition(":")
            if name.lower() == "status":
                status = int(value.strip().split()[0])
            else:
                headers.append((name, value.strip()))
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        try:
            while True:
                chunk = process.stdout.read1(65536)
                if not chunk:
                    break
                self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
            self.wfile.write(b"0\r\n\r\n")
        finally:
            writer.join()
            process.wait()

    @staticmethod
    def feed(process, body):
        try:
            process.stdin.write(body)
            process.stdin.close()
        except BrokenPipeError:
            pass


class Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = False

    def handle_error(self, request, client_address):
        # A client that hangs up early (one that stops reading a hostile answer) is no error.
        if isinstance(sys.exc_info()[1], (ConnectionResetError, BrokenPipeError)):
            return
        super().handle_error(request, client_address)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--root", required=True)
    parser.add_argument("--address", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--user", default="gitwire:secret")
    parser.add_argument("--location-user", default="location-user:location-pw",
                        help="the user information /cross-userinfo/ puts in its Location")
    parser.add_argument("--log-authorization", action="store_true",
                        help="log the Authorization header of each request, decoded")
    parser.add_argument("--log-framing", action="store_true",
                        help="log how each request's body came (body=length, chunked, flush: a body of "
                             "just \"0000\", or none) and whether it carried an Authorization header (never its value)")
    parser.add_argument("--log-header", action="append", default=[],
                        help="log every value of this request header (repeatable)")
    parser.add_argument("--certificate", help="PEM certificate chain; serve HTTPS")
    parser.add_argument("--key", help="PEM private key for --certificate")
    parser.add_argument("--lifetime", type=float, default=300.0, help="seconds before the server stops by itself")
    parser.add_argument("--log", help="file to append one line per request to")
    parser.add_argument("--port-file", help="file to write the port to once listening")
    options = parser.parse_args()
    if not (options.address == "::1" or options.address.startswith("127.") and
            options.address.count(".") == 3 and all(part.isdigit() for part in options.address.split("."))):
        sys.exit("refusing to listen beyond loopback")
    if options.address == "::1":
        Server.address_family = socket.AF_INET6
    server = Server((options.address, options.port), Handler)
    server.root = os.path.realpath(options.root)
    server.credentials = options.user
    server.git = shutil.which("git") or "git"
    server.log = open(options.log, "a") if options.log else None
    server.log_lock = threading.Lock()
    server.log_authorization = options.log_authorization
    server.log_headers = options.log_header
    server.log_framing = options.log_framing
    server.location_user = options.location_user
    server.secure = bool(options.certificate)
    if options.certificate:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(options.certificate, options.key)
        server.socket = context.wrap_socket(server.socket, server_side=True)
    threading.Thread(target=lambda: (time.sleep(options.lifetime), os._exit(0)), daemon=True).start()
    if options.port_file:
        with open(options.port_file + ".tmp", "w") as handle:
            handle.write("%d\n" % server.server_address[1])
        os.rename(options.port_file + ".tmp", options.port_file)
    else:
        print(server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
