/*
 * The floor for `ls-remote` over git://, for Tools/bench-ls-remote.sh: the least a client can do.
 * Connects to 127.0.0.1:<port>, sends the git:// request for <path> (protocol v0), reads pkt-lines
 * until the flush that ends the ref advertisement, sends a flush and exits. It parses nothing and
 * prints nothing, so its time is process start-up plus the server's.
 *
 *   cc -O2 -o ls-remote-floor Tools/ls-remote-floor.c
 *   ls-remote-floor <port> </path.git>
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static unsigned char buffer[1 << 16];

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: ls-remote-floor <port> </path.git>\n");
        return 2;
    }
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = htons((unsigned short)atoi(argv[1]))};
    inet_pton(AF_INET, "127.0.0.1", &address.sin_addr);
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (connect(fd, (struct sockaddr *)&address, sizeof address) != 0) {
        perror("connect");
        return 1;
    }
    char request[4096];
    int body = snprintf(request + 4, sizeof request - 4, "git-upload-pack %s%chost=127.0.0.1:%s%c", argv[2], 0, argv[1], 0);
    char digits[5];
    snprintf(digits, sizeof digits, "%04x", body + 4);
    memcpy(request, digits, 4);
    if (write(fd, request, (size_t)body + 4) != body + 4) return 1;

    /* Walk the pkt-lines as they arrive; stop at the first flush. */
    size_t have = 0, at = 0;
    for (;;) {
        while (have - at >= 4) {
            unsigned length = 0;
            for (int i = 0; i < 4; i++) {
                unsigned char c = buffer[at + i];
                length = length * 16 + (c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10);
            }
            if (length == 0) {
                if (write(fd, "0000", 4) != 4) return 1;
                close(fd);
                return 0;
            }
            if (have - at < length) break;
            at += length;
        }
        memmove(buffer, buffer + at, have - at);
        have -= at;
        at = 0;
        ssize_t got = read(fd, buffer + have, sizeof buffer - have);
        if (got <= 0) return 1;
        have += (size_t)got;
    }
}
