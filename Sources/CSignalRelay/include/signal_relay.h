#ifndef MATTERFLOW_SIGNAL_RELAY_H
#define MATTERFLOW_SIGNAL_RELAY_H

/// The read end of the process's signal relay pipe, created on the first call (later calls return the same end):
/// each relayed signal arrives there as one byte holding its number. -1 when the pipe cannot be made (errno says why).
int matterflow_signal_relay_open(void);

/// Relays `signo` from now on: its handler writes the signal's number to the relay pipe (async-signal-safe, never
/// blocking; a signal that finds the pipe full is dropped, as one already pending would be). Call
/// `matterflow_signal_relay_open` first. Returns 0, or -1 with errno set.
int matterflow_signal_relay_install(int signo);

#endif
