#define _GNU_SOURCE
#include "signal_relay.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

static int relay_pipe[2] = {-1, -1};
static pthread_mutex_t relay_lock = PTHREAD_MUTEX_INITIALIZER;

static void relay(int signo) {
    int saved = errno;
    unsigned char number = (unsigned char)signo;
    ssize_t ignored = write(relay_pipe[1], &number, 1);
    (void)ignored;
    errno = saved;
}

int matterflow_signal_relay_open(void) {
    pthread_mutex_lock(&relay_lock);
    if (relay_pipe[0] < 0) {
        int ends[2];
        if (pipe2(ends, O_CLOEXEC) == 0) {
            // The handler must never block: the write end does not wait for room.
            fcntl(ends[1], F_SETFL, fcntl(ends[1], F_GETFL) | O_NONBLOCK);
            relay_pipe[0] = ends[0];
            relay_pipe[1] = ends[1];
        }
    }
    int read_end = relay_pipe[0];
    pthread_mutex_unlock(&relay_lock);
    return read_end;
}

int matterflow_signal_relay_install(int signo) {
    if (relay_pipe[1] < 0) {
        errno = EBADF;
        return -1;
    }
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = relay;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    return sigaction(signo, &action, NULL);
}
