/* SPDX-License-Identifier: GPL-2.0 */
/*
 * record's reader: the names of the files of processes that ended or
 * unmapped them (recnames.c).  The reader calls names_init() once,
 * names_attach() with the command's pid before it runs, names_poll()
 * whenever names_fd() is readable (and in its loop), and names_find()
 * where a process's maps no longer name a file.  The command, once
 * traced, calls names_filter() just before its exec.
 */
#ifndef MMTUNECTL_RECNAMES_H
#define MMTUNECTL_RECNAMES_H

#include <sys/types.h>

/* A line of /proc/PID/maps that maps a file by path (@line is cut at its end) */
struct maps_file {
	char range[40];		/* START-END, as map_files names it */
	unsigned int maj, min;
	unsigned long ino;
	const char *path;	/* in the line */
};

int maps_file(char *line, struct maps_file *f);	/* 0, or -1: not one */
int names_init(void);
int names_fd(void);
int names_attach(pid_t pid);
void names_poll(void);
const char *names_find(unsigned int maj, unsigned int min, unsigned long ino);
int names_open(unsigned int maj, unsigned int min, unsigned long ino);
int names_filter(void);

#endif
