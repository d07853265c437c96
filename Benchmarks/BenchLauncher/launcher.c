// bench-launcher LOG PROGRAM ARGS...: runs PROGRAM with its output in LOG and prints
// "STATUS SECONDS MAXRSS_KB CPU_SECONDS START" for it alone (START: CLOCK_MONOTONIC seconds
// just before the spawn, to place the server's log on the process's time line).
//
// Why a separate tiny process: Linux folds the pre-exec address space's RSS high-water mark into
// the exec'd program's ru_maxrss. Spawned from Bench (tens of MiB), every tool would report
// Bench's size; spawned from this launcher (about a MiB), the figure is the tool's own.
//
// SIGTERM to the launcher kills the program (SIGKILL) and still reports it (status 137): Bench
// ends a run past its deadline by the launcher's pid alone, also when the launcher runs in
// another network namespace through `ip netns exec`, and nothing is left running.
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static volatile pid_t child = 0;

static void on_term(int signal) {
    (void)signal;
    if (child > 0) kill(child, SIGKILL);
}

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: bench-launcher LOG PROGRAM [ARGS...]\n");
        return 64;
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 1, argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_adddup2(&actions, 1, 2);
    pid_t pid;
    // Blocked until the child's pid is known, so a SIGTERM in between is not lost.
    sigset_t term, previous;
    sigemptyset(&term);
    sigaddset(&term, SIGTERM);
    sigprocmask(SIG_BLOCK, &term, &previous);
    struct sigaction action = {.sa_handler = on_term};
    sigaction(SIGTERM, &action, NULL);
    posix_spawnattr_t attributes;
    posix_spawnattr_init(&attributes);
    posix_spawnattr_setsigmask(&attributes, &previous);
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGMASK);
    double start = now();
    int error = posix_spawn(&pid, argv[2], &actions, &attributes, argv + 2, environ);
    child = error == 0 ? pid : 0;
    sigprocmask(SIG_SETMASK, &previous, NULL);
    if (error != 0) {
        fprintf(stderr, "bench-launcher: cannot start %s\n", argv[2]);
        return 70;
    }
    int status = 0;
    struct rusage usage;
    while (wait4(pid, &status, 0, &usage) < 0) {}
    double seconds = now() - start;
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    double cpu = (double)usage.ru_utime.tv_sec + usage.ru_utime.tv_usec / 1e6
               + (double)usage.ru_stime.tv_sec + usage.ru_stime.tv_usec / 1e6;
    printf("%d %.6f %ld %.6f %.6f\n", code, seconds, usage.ru_maxrss, cpu, start);
    return 0;
}
