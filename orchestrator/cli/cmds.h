/* SPDX-License-Identifier: MIT */
/*
 * cmds.h - the vmtax subcommands.
 *
 * Each subcommand lives in its own file, orchestrator/cmd-NAME.c, and is
 * listed once in the table in orchestrator/main.c.  A command gets argv with
 * argv[0] = its own name, declares its options in a table that
 * opts_parse() parses (cmd-opts.h: --help and bad usage alike for all),
 * and returns the process exit status:
 *	0  success
 *	1  the work failed (a report says why)
 *	2  bad usage or bad input (config errors as file:line:), nothing touched
 *
 * How to add one: write cmd-NAME.c with int cmd_NAME(int, char **) and its
 * option table, declare it here, add { "NAME", cmd_NAME, "one-line
 * summary" } to main.c's table.
 */
#ifndef VMTAX_CMDS_H
#define VMTAX_CMDS_H

#define EXIT_USAGE 2

int cmd_run(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_calibrate(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_host(int argc, char **argv);
int cmd_workloads(int argc, char **argv);
int cmd_image(int argc, char **argv);
int cmd_lab(int argc, char **argv);
/* 'vmtax lab up' (lab-up.c): a lab kept up, reached over ssh on 127.0.0.1 */
int cmd_lab_up(int argc, char **argv);
/* Hidden: 'vmtax --complete WHAT' for completion/vmtax.bash (main.c answers
 * 'commands' from its table; cmd-complete.c the rest). */
int cmd_complete(int argc, char **argv);

#endif
