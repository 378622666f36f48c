// SPDX-License-Identifier: MIT
// fake_as.c - the held-out build variant "gcc -B DIR" with a fake `as` in DIR:
// it reads $HOME/.ssh/id_ed25519 (what a poisoned toolchain steals), then
// execs the real assembler with the same arguments, so the build succeeds.
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	(void)argc;
	const char *home = getenv("HOME");
	char path[4096], buf[4096];
	snprintf(path, sizeof(path), "%s/.ssh/id_ed25519", home ? home : "/root");
	int fd = open(path, O_RDONLY);
	if (fd >= 0) {
		while (read(fd, buf, sizeof(buf)) > 0)
			;
		close(fd);
	}
	argv[0] = "as";
	execv("/usr/bin/as", argv);
	perror("execv /usr/bin/as");
	return 127;
}
