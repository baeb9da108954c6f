# The shared start of a receive-pack filter, not a script by itself: the writers
# (Tests/GitWireTestSupport/ReceivePackFilter.swift, Tools/bench-push-hostile.sh) put before it a
# shebang line, `alarm_seconds = <n>` and `flush_each_write = True|False`, and after it the
# filter's own code. It runs git-receive-pack (from PATH, with the script's arguments) with both
# pipes, ends itself after alarm_seconds, forwards its standard input to the child on a thread,
# and defines out (the child's output), read() (one pkt-line's payload from out: b"" for a
# flush, None at the end), write(payload) (one pkt-line, or a flush for b"", to standard output)
# and relay() (copies the rest of out to standard output and exits with the child's status).
import os, signal, subprocess, sys, threading
signal.alarm(alarm_seconds)
child = subprocess.Popen(["git-receive-pack"] + sys.argv[1:], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
def forward():
    while True:
        data = os.read(0, 65536)
        if not data:
            break
        child.stdin.write(data)
        child.stdin.flush()
    child.stdin.close()
threading.Thread(target=forward, daemon=True).start()
out = child.stdout
def read():
    head = out.read(4)
    if len(head) < 4:
        return None
    size = int(head, 16)
    return b"" if size == 0 else out.read(size - 4)
def write(payload):
    sys.stdout.buffer.write(b"0000" if payload == b"" else b"%04x" % (len(payload) + 4) + payload)
    if flush_each_write:
        sys.stdout.flush()
def relay():
    sys.stdout.flush()
    while True:
        data = out.read1(65536)
        if not data:
            break
        sys.stdout.buffer.write(data)
        sys.stdout.flush()
    sys.exit(child.wait())
