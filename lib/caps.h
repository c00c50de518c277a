/* SPDX-License-Identifier: MIT */
/*
 * caps.h - every limit on what an untrusted peer can make the host read,
 * hold or write: a guest's agent, the lab, a results file or run
 * directory that vmtax did not write, the lab's files and a fleet host's
 * run directory as they come back (docs/security.md, "Caps").
 *
 * One header so that each limit is defined once and can be found: the
 * codec, the agent client, the profile parser and the reports include it.
 * An exceeded cap is an error with the cap's name and value in the
 * message: the call, the sample or the cell fails with it; it never ends
 * the host process.  A cap is far above what vmtax itself ever produces,
 * so an honest guest never meets one.
 *
 * How to add one: a #define here with what it bounds, why this size, and
 * where it is checked.
 */
#ifndef VMTAX_CAPS_H
#define VMTAX_CAPS_H

/*
 * One protocol frame's JSON payload (lib/proto.c refuses a larger length
 * before reading it; docs/protocol.md).  The decoder's buffer never grows
 * beyond it plus the 8-byte header.
 */
#define PROTO_MAX_FRAME (1024 * 1024)

/*
 * Messages an agent may send while one request waits for its reply
 * (orchestrator/guest/agent-client.c, agent_call()): replies, heartbeats, stale
 * replies, bad frames.  A week-long run (the longest workload timeout) at
 * the shortest heartbeat (0.5 s) sends 1.2 million heartbeats.
 */
#define AGENT_CALL_MSGS_MAX (4L * 1024 * 1024)

/*
 * Bytes of one agent transcript (the logs/ file every message of one guest
 * boot is copied into; agent-client.c).  A run's replies are a few KiB per
 * sample, a profile under PROFILE_FOLDED_MAX: a 10,000-sample cell with a
 * heartbeat every 0.5 s for a week stays under it.
 */
#define AGENT_TRANSCRIPT_MAX (256LL * 1024 * 1024)

/*
 * Bytes of one file copied out of a guest by agent_get_file() (the lab's
 * results and logs; agent-client.c).  The guest's claimed size is checked
 * before the first byte, and the bytes received as they come.
 */
#define AGENT_FILE_MAX (256LL * 1024 * 1024)

/*
 * A profile's folded text as the agent sends it (lib/profile-fold.c,
 * profile_to_json(): the smallest stacks are summed into "[other stacks]"
 * beyond it), so a run reply stays under PROTO_MAX_FRAME.
 */
#define PROFILE_FOLDED_MAX (640 * 1024)

/*
 * Frames in one folded stack, checked by profile_folded_parse() (a guest's
 * reply, a run directory's profiles/): the sampler writes at most
 * PROFILE_MAX_DEPTH + 1 (the command and its frames), so 1024 leaves room
 * for stacks from other tools.  The flame graph (fmt-html-flame.c)
 * recurses once per frame: the cap bounds its depth.
 */
#define PROFILE_STACK_FRAMES_MAX 1024

/*
 * Distinct stacks in one profile (profile_folded_parse()).  A profile
 * under PROFILE_FOLDED_MAX holds at most ~160,000 (4 bytes a line); the
 * profiles of this tree's runs hold hundreds to a few thousand.
 */
#define PROFILE_STACKS_MAX 1000000

/*
 * Bytes of a results.json the reports read (reports/model.c): in lab mode
 * the lab wrote it.  A week of samples with profiles stays far below.
 */
#define RESULTS_FILE_MAX (256u << 20)

/*
 * What loading a results document may cost (lib/results-doc.h): the heap
 * jansson's tree of an N-byte document would take, estimated by a scan
 * before it is built, at most RESULTS_DOC_COST_FACTOR * N (or
 * RESULTS_DOC_MEM_MIN, for a file under 64 KiB) and at most
 * RESULTS_DOC_MEM_MAX; the text itself comes on top while it is parsed
 * (read_file() holds at most twice N).  vmtax writes results.json
 * indented, which jansson holds in 4 to 6 times its size (estimated 6 to
 * 9: tests/fixtures); compact, 7 to 9 (estimated 10 to 13).  A file of
 * nothing but empty objects ("{},{},...") takes 78 times its size and is
 * refused.  With RESULTS_DOC_MEM_MAX a document at RESULTS_FILE_MAX and
 * its text stay under 1.3 GiB; an indented results.json of vmtax's loads
 * up to about 90 MiB.
 */
#define RESULTS_DOC_COST_FACTOR 16
#define RESULTS_DOC_MEM_MIN (1u << 20)
#define RESULTS_DOC_MEM_MAX (768u << 20)

/*
 * Bytes of a folded file the reports read from a run directory
 * (reports/profile-report.c).
 */
#define PROFILE_FILE_MAX (64u << 20)

/*
 * Transfers: what the lab's run directory may bring into DIR/lab every
 * LAB_SYNC_S while it runs (orchestrator/lab/lab-sync.c, lab_sync_files()),
 * and what a fleet host's run directory may bring into DIR/hosts/NAME at
 * its end (orchestrator/fleet/fleet-collect.c, fleet_fetch()).  Each refusal
 * names the lab's file or the host, the size and the cap.
 */
#define LAB_NAME_MAX 128		 /* bytes in one name of the lab's */
#define LAB_DEPTH_MAX 4			 /* names in one path of the lab's */
#define LAB_FILES_MAX 4096		 /* files in one listing */
#define LAB_LIST_MAX (1024 * 1024)	 /* bytes of the listing */
#define LAB_FILE_BYTES_MAX (256LL << 20) /* bytes in one file */
/*
 * Bytes one sync brings (what changed since the last one): the lab's run
 * directory of a long matrix is a few hundred MiB at most.
 */
#define LAB_SYNC_BYTES_MAX (1LL << 30)
/*
 * Bytes of the lab's files in DIR/lab after a sync, the run's whole copy:
 * a file the lab no longer lists is removed there (an old sync is
 * replaced, not kept), files already here keep their room first, and a
 * file that would pass the cap is refused.  During a sync DIR/lab holds
 * at most this plus what the sync brings (LAB_SYNC_BYTES_MAX).
 */
#define LAB_TOTAL_BYTES_MAX (4LL << 30)
/*
 * A fleet host's run directory, copied back with scp: at most this many
 * bytes (apparent sizes) and files.  Asked of the host before the copy
 * (du), watched while scp writes (it is killed past the cap) and counted
 * again after it; past either cap the copy is removed and the host's
 * cells fail with the reason.  A host's honest run directory holds its
 * results (RESULTS_FILE_MAX at most), samples, logs and profiles.
 */
#define FLEET_COPY_BYTES_MAX (4LL << 30)
#define FLEET_COPY_FILES_MAX 100000
/* Directory levels of a host's copy that are counted (a run directory has
 * three): one deeper is refused as past the caps. */
#define FLEET_COPY_DEPTH_MAX 16

/*
 * Distinct frame names in one comparison of a cell's profile with the
 * baseline's (reports/profile-diff.c): each costs a few hundred bytes, so
 * 60 MB of folded stacks all of different names took 2.7 GB and two
 * minutes.  The agent's profiles (under PROFILE_FOLDED_MAX) hold a few
 * thousand.  Past it the cell has no comparison, and says why.
 */
#define PROFILE_DIFF_SYMBOLS_MAX 100000

/*
 * What one report's profiles and their comparisons may hold in all
 * (reports/profile-report.c): a results.json can name the same folded
 * file from every cell.  A profile counts its folded bytes and 96 bytes a
 * line, a comparison 128 bytes a frame and its name; the profile or
 * comparison past it is left out with the reason.  In MiB, so that its
 * messages can say it.
 */
#define PROFILE_REPORT_MEM_MAX_MIB 512
#define PROFILE_REPORT_MEM_MAX ((size_t)PROFILE_REPORT_MEM_MAX_MIB << 20)

/*
 * The HTML report's flame graph (reports/fmt-html-flame.c) builds only
 * what it draws: frames of at least FLAME_MIN_SHARE_PPM millionths of the
 * samples (0.03%: 0.3 px of its 1000 px), in at most FLAME_ROWS_MAX rows.
 * Each row's frames have disjoint samples, so a tree holds at most
 * FLAME_ROWS_MAX * 1e6 / FLAME_MIN_SHARE_PPM nodes (213,333), whatever the
 * profile; a note under the graph says how many frames were left out.
 */
#define FLAME_MIN_SHARE_PPM 300
#define FLAME_ROWS_MAX 64

/*
 * Frames the flame graphs of one HTML report draw in all (a frame is about
 * 170 bytes of SVG, and the report is built in memory: about 85 MB): every
 * cell of a results.json can name the same profile.  A graph past it is
 * left out with a note.
 */
#define FLAME_REPORT_FRAMES_MAX 500000

#endif
