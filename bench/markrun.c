// SPDX-License-Identifier: GPL-2.0
/*
 * markrun: run a command between the markers of bench/plugin/insncount.c,
 * so that the plugin counts the guest instructions of the whole command
 * (every process it starts, user and kernel mode) - on a one-vCPU guest,
 * where nothing else runs meanwhile but the kernel's own work.
 *
 *   markrun COMMAND [ARG...]
 *
 * Exits with the command's status (128 + N if killed by signal N; 127 if
 * it could not be started, 2 for a usage error).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include "markers.h"

int main(int argc, char **argv)
{
	int status = 127 << 8;
	pid_t pid;

	if (argc < 2 || !strcmp(argv[1], "--help")) {
		fprintf(argc < 2 ? stderr : stdout, "usage: markrun COMMAND [ARG...]\n");
		return argc < 2 ? 2 : 0;
	}
#ifdef NO_MARKERS
	fprintf(stderr, "markrun: no markers on this architecture\n");
	return 2;
#endif
	fflush(NULL);
	MARKER(0);
	pid = fork();
	if (pid == 0) {
		execvp(argv[1], argv + 1);
		perror(argv[1]);
		_exit(127);
	}
	while (pid > 0 && waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	MARKER(1);
	MARKER(2);
	if (pid < 0) {
		perror("fork");
		return 127;
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
