#!/usr/bin/env python3
"""A git:// server with a round-trip time, on many loopback addresses, for benchmarking batches.

Loopback has no latency and this kernel has no netem, so this server adds it: every answer waits
one round trip (--rtt) before it is sent, and the first answer of a connection waits one more
(the TCP handshake a real network would have cost before the request could be sent). It listens
on --hosts addresses 127.0.0.1, 127.0.0.2, ... on one port, and serves every path from one real
repository, so that a thousand remotes cost no disk and almost no CPU:

- protocol v0/v1: the ref advertisement `git upload-pack --advertise-refs` makes for the
  repository, then it reads until the client's flush or end of stream;
- protocol v2 (`version=2` in the request's extra parameters): the capability advertisement, then
  each command request is answered with what `git upload-pack --stateless-rpc` answers for those
  exact request bytes (asked once per distinct request and kept), so every client gets git's own
  answer to what it asked.

With --certificate and --key it speaks smart HTTP over TLS instead (HTTP/1.1 with keep-alive):
`GET <path>/info/refs?service=git-upload-pack` gets the advertisement (v2 when the request has
`Git-Protocol: version=2`), `POST <path>/git-upload-pack` git's answer to its body; a
connection's first answer waits two extra round trips (the TCP and the TLS 1.3 handshakes), the
TLS handshake itself is real.

Only listing is served (fetch requests get git's answer too, but a pack is not the point).
Binds only to 127.0.0.0/8 and stops by itself after --lifetime seconds.

Usage: latency-server.py --repository <git dir> --port <port> [--hosts 50] [--rtt 0.1]
                         [--lifetime 600] [--ready <file>] [--certificate <pem> --key <pem>]
"""

import argparse
import asyncio
import gzip
import os
import ssl
import subprocess
import sys


def pkt_read(data, offset):
    """Returns (payload or None for a flush/delim, next offset), or None if incomplete."""
    if len(data) - offset < 4:
        return None
    length = int(data[offset : offset + 4], 16)
    if length < 4:
        return (None, offset + 4)
    if len(data) - offset < length:
        return None
    return (data[offset + 4 : offset + length], offset + length)


class Server:
    def __init__(self, repository, rtt):
        self.repository = repository
        self.rtt = rtt
        env = dict(os.environ, GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL="/dev/null")
        self.env = env
        self.v0 = subprocess.run(
            ["git", "upload-pack", "--advertise-refs", repository],
            env=env, check=True, capture_output=True).stdout
        self.v2 = subprocess.run(
            ["git", "upload-pack", "--advertise-refs", repository],
            env=dict(env, GIT_PROTOCOL="version=2"), check=True, capture_output=True).stdout
        self.answers = {}

    def answer(self, request):
        if request not in self.answers:
            self.answers[request] = subprocess.run(
                ["git", "upload-pack", "--stateless-rpc", self.repository],
                input=request, env=dict(self.env, GIT_PROTOCOL="version=2"),
                check=True, capture_output=True).stdout
        return self.answers[request]

    async def serve(self, reader, writer):
        try:
            await self.conversation(reader, writer)
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            writer.close()

    async def conversation(self, reader, writer):
        data = b""
        # The request line.
        while True:
            packet = pkt_read(data, 0)
            if packet is not None:
                break
            chunk = await reader.read(65536)
            if not chunk:
                return
            data += chunk
        line, offset = packet
        data = data[offset:]
        if line is None or not line.startswith(b"git-upload-pack "):
            return
        extra = line.split(b"\0")[2:] if line.count(b"\0") >= 2 else []
        version2 = any(part == b"version=2" for part in extra)
        # The handshake's round trip and the request's.
        await asyncio.sleep(2 * self.rtt)
        writer.write(self.v2 if version2 else self.v0)
        await writer.drain()
        if not version2:
            # v0: the client says it wants nothing with a flush, or hangs up.
            await reader.read(65536)
            return
        while True:
            # A command request: packets up to and including a flush.
            start = 0
            while True:
                complete = False
                offset = start
                while True:
                    packet = pkt_read(data, offset)
                    if packet is None:
                        break
                    payload, offset = packet
                    if payload is None and data[offset - 4 : offset] == b"0000":
                        complete = True
                        break
                if complete:
                    break
                chunk = await reader.read(65536)
                if not chunk:
                    return
                data += chunk
            request, data = data[:offset], data[offset:]
            if request == b"0000":
                return
            answer = self.answer(request)
            await asyncio.sleep(self.rtt)
            writer.write(answer)
            await writer.drain()


class HTTPServer(Server):
    async def serve(self, reader, writer):
        try:
            first = True
            while await self.request(reader, writer, first):
                first = False
        except (ConnectionError, asyncio.IncompleteReadError, ssl.SSLError):
            pass
        finally:
            writer.close()

    async def request(self, reader, writer, first):
        try:
            head = await reader.readuntil(b"\r\n\r\n")
        except asyncio.IncompleteReadError:
            return False
        lines = head.decode("latin-1").split("\r\n")
        method, target, _ = lines[0].split(" ", 2)
        headers = {}
        for line in lines[1:]:
            if ":" in line:
                name, value = line.split(":", 1)
                headers[name.strip().lower()] = value.strip()
        body = b""
        if headers.get("transfer-encoding", "").lower() == "chunked":
            while True:
                size = int((await reader.readuntil(b"\r\n")).split(b";")[0], 16)
                chunk = await reader.readexactly(size + 2)
                if size == 0:
                    break
                body += chunk[:-2]
        elif "content-length" in headers:
            body = await reader.readexactly(int(headers["content-length"]))
        if headers.get("content-encoding", "").lower() == "gzip":
            body = gzip.decompress(body)
        version2 = "version=2" in headers.get("git-protocol", "")
        if method == "GET" and target.endswith("/info/refs?service=git-upload-pack"):
            kind = "application/x-git-upload-pack-advertisement"
            answer = b"001e# service=git-upload-pack\n0000" + (self.v2 if version2 else self.v0)
        elif method == "POST" and target.endswith("/git-upload-pack"):
            kind = "application/x-git-upload-pack-result"
            answer = self.answer(body)
        else:
            writer.write(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n")
            await writer.drain()
            return True
        await asyncio.sleep(self.rtt * (3 if first else 1))
        writer.write(
            ("HTTP/1.1 200 OK\r\nContent-Type: %s\r\nCache-Control: no-cache\r\n"
             "Content-Length: %d\r\n\r\n" % (kind, len(answer))).encode() + answer)
        await writer.drain()
        return headers.get("connection", "").lower() != "close"


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--repository", required=True)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--hosts", type=int, default=50)
    parser.add_argument("--rtt", type=float, default=0.1)
    parser.add_argument("--lifetime", type=float, default=600)
    parser.add_argument("--ready")
    parser.add_argument("--certificate")
    parser.add_argument("--key")
    arguments = parser.parse_args()
    if not 1 <= arguments.hosts <= 250:
        sys.exit("--hosts must be 1 to 250")
    context = None
    if arguments.certificate:
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(arguments.certificate, arguments.key)
        server = HTTPServer(arguments.repository, arguments.rtt)
    else:
        server = Server(arguments.repository, arguments.rtt)
    servers = []
    for host in range(1, arguments.hosts + 1):
        servers.append(await asyncio.start_server(
            server.serve, f"127.0.0.{host}", arguments.port, backlog=4096, ssl=context))
    if arguments.ready:
        with open(arguments.ready, "w") as ready:
            ready.write("ready\n")
    await asyncio.sleep(arguments.lifetime)
    for listening in servers:
        listening.close()


if __name__ == "__main__":
    asyncio.run(main())
