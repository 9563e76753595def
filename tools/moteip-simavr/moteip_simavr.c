/*
 * tools/: host programs beside the stack, top floor. moteip-simavr runs
 * a firmware; it links the stack only for --at86rf233 (the ZEP codec and
 * the FCS of the transceiver's model, simavr_radio.h); nothing includes
 * tools/.
 *
 * moteip-simavr: runs an AVR firmware on libsimavr (cycle-accurate) with
 * USART0 on a Unix socket, so moteip-slip can bridge the board's SLIP line
 * to a TUN device (port/avr/run.sh, tests/interop/test_avr.py), and counts
 * the cycles the CPU worked (bench/avr-cycles, docs/BENCHMARKS.md).
 *
 *   moteip-simavr [options] FIRMWARE.elf
 *     --uart unix:PATH     listen on PATH; one peer at a time carries USART0
 *                          (default: unix:./moteip-simavr.uart)
 *     --mcu NAME           simavr's name of the chip (default atmega1284p)
 *     --freq HZ            clock (default 16000000; the firmware's F_CPU)
 *     --seed HEX           the 16 EEPROM seed bytes (32 hex digits) the board
 *                          was provisioned with (port/avr/board.h); default:
 *                          fresh ones from getrandom()
 *     --stats-json PATH    counters as JSON, written on SIGUSR1 and at exit
 *     --ram PATH           with the counters: the data space (registers, I/O
 *                          and SRAM, RAMEND + 1 bytes from address 0)
 *     --profile PATH       with the counters: working cycles per flash word
 *                          address, "ADDR CYCLES" lines (bench/avr-cycles
 *                          maps them to functions)
 *     --at86rf233 LOCAL,REMOTE
 *                          an AT86RF233 (at86rf233_model.h) on the SPI, /SEL
 *                          on PB4, IRQ on PD2 (INT0), its air ZEP datagrams
 *                          from LOCAL to REMOTE (port/avr/radio_node.c's
 *                          board; the counters get a "radio" object)
 *
 * Time: the firmware's clock is the emulated cycle count. While the CPU
 * sleeps, the runner waits in real time until the emulated clock catches
 * up with the wall clock (or bytes arrive), so the board's timers and the
 * Linux peer's agree; while it works, emulation runs as fast as the host
 * allows. A 1 ms emulated tick bounds every sleep, so a byte that arrives
 * while the board sleeps reaches it within a millisecond.
 *
 * Cycles: `cycles` is the emulated clock; `sleep_cycles` the part the CPU
 * slept; `active_cycles` the rest: instructions and interrupt entries,
 * the work. The UART: simavr holds received bytes in a 64-entry FIFO
 * and raises XOFF when it is full, XON when the firmware found it empty;
 * the runner sends bytes only between the two, so nothing is lost at any
 * rate (the firmware's own flow control: port/avr/board.c).
 *
 * Prints "ready uart=PATH" on stdout once the socket listens (simavr's own
 * messages go to stderr). Exit: 0 on SIGTERM/SIGINT, 1 when the firmware
 * crashed or stopped, 2 on a bad argument.
 *
 * NETWORK SAFETY: the UART is a Unix socket; --at86rf233 sends UDP to the
 * REMOTE it is given (the tests: loopback in their own namespace).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <avr_eeprom.h>
#include <avr_uart.h>
#include <sim_avr.h>
#include <sim_elf.h>
#include <sim_io.h>
#include <sim_irq.h>

#include "simavr_radio.h"

#define SEED_LEN 16
#define BUF_SIZE 4096
#define STEPS_PER_CHECK 4096      /* instructions between looks at the flags */

struct runner {
    avr_t *avr;
    const char *uart_path;
    const char *stats_path;
    const char *ram_path;
    const char *profile_path;
    int listen_fd;
    int peer_fd;                  /* -1: no peer */
    /* host -> board */
    uint8_t in[BUF_SIZE];
    size_t in_len, in_off;
    bool xoff;                    /* simavr's receive FIFO is full */
    /* board -> host */
    uint8_t out[BUF_SIZE];
    size_t out_len;
    /* time */
    struct timespec start;
    uint64_t tick_cycles;         /* 1 ms */
    volatile bool io_due;
    /* counters */
    uint64_t sleep_cycles;
    uint64_t active_cycles;
    uint64_t instructions;
    uint64_t uart_rx_bytes;       /* into the board */
    uint64_t uart_tx_bytes;       /* out of the board */
    uint64_t uart_tx_dropped;     /* out of the board with no peer to take them */
    uint64_t peers;
    uint64_t *profile;            /* active cycles per flash word */
    size_t profile_words;
    const char *radio_spec;       /* --at86rf233 LOCAL,REMOTE, or NULL */
    struct simavr_radio radio;
};

static volatile sig_atomic_t stop_signal;
static volatile sig_atomic_t dump_signal;
static struct runner *the_runner;   /* for simavr's callbacks that take no context */

static void on_signal(int sig)
{
    if (sig == SIGUSR1)
        dump_signal = 1;
    else
        stop_signal = 1;
}

static void die_usage(const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "moteip-simavr: ");
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nusage: moteip-simavr [--uart unix:PATH] [--mcu NAME] [--freq HZ] "
                    "[--seed HEX32] [--stats-json PATH] [--ram PATH] [--profile PATH] FIRMWARE.elf\n");
    exit(2);
}

static uint64_t wall_ns(const struct runner *r)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)(t.tv_sec - r->start.tv_sec) * 1000000000u + (uint64_t)t.tv_nsec -
           (uint64_t)r->start.tv_nsec;
}

static uint64_t emulated_ns(const struct runner *r, avr_cycle_count_t cycles)
{
    return (uint64_t)((unsigned __int128)cycles * 1000000000u / r->avr->frequency);
}

/* --- the UART ---------------------------------------------------------------- */

static void push_input(struct runner *r)
{
    avr_irq_t *irq = avr_io_getirq(r->avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_INPUT);
    while (!r->xoff && r->in_off < r->in_len) {
        avr_raise_irq(irq, r->in[r->in_off++]);
        r->uart_rx_bytes++;
    }
    if (r->in_off == r->in_len)
        r->in_off = r->in_len = 0;
}

static void close_peer(struct runner *r)
{
    if (r->peer_fd >= 0)
        close(r->peer_fd);
    r->peer_fd = -1;
    r->out_len = 0;
    /* bytes already read stay queued for the board, like a line's buffer */
}

static void flush_output(struct runner *r)
{
    size_t off = 0;
    while (r->peer_fd >= 0 && off < r->out_len) {
        ssize_t n = send(r->peer_fd, r->out + off, r->out_len - off, MSG_NOSIGNAL);
        if (n > 0) {
            off += (size_t)n;
        } else if (n < 0 && errno == EINTR) {
            continue;
        } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            struct pollfd p = { .fd = r->peer_fd, .events = POLLOUT };
            (void)poll(&p, 1, 100);
        } else {
            close_peer(r);
            return;
        }
    }
    r->out_len = 0;
}

static void on_uart_output(struct avr_irq_t *irq, uint32_t value, void *param)
{
    struct runner *r = param;
    (void)irq;
    r->uart_tx_bytes++;
    if (r->peer_fd < 0) {
        r->uart_tx_dropped++;
        return;
    }
    if (r->out_len == sizeof r->out)
        flush_output(r);
    if (r->peer_fd >= 0)
        r->out[r->out_len++] = (uint8_t)value;
}

static void on_uart_xon(struct avr_irq_t *irq, uint32_t value, void *param)
{
    struct runner *r = param;
    (void)irq;
    (void)value;
    r->xoff = false;
    push_input(r);
}

static void on_uart_xoff(struct avr_irq_t *irq, uint32_t value, void *param)
{
    struct runner *r = param;
    (void)irq;
    r->xoff = value != 0;
}

/* Accepts a peer, reads what it sent, writes what the board sent; waits
 * up to timeout_ms for something to arrive. */
static void service_io(struct runner *r, int timeout_ms)
{
    struct pollfd p[3];
    int n;

    flush_output(r);
    p[0].fd = r->listen_fd;
    p[0].events = r->peer_fd < 0 ? POLLIN : 0;
    p[1].fd = r->peer_fd;
    p[1].events = r->in_len < sizeof r->in ? POLLIN : 0;
    p[2].fd = r->radio_spec != NULL ? r->radio.fd : -1;
    p[2].events = POLLIN;
    n = poll(p, 3, timeout_ms);
    if (n <= 0)
        return;
    if (p[2].revents & POLLIN)
        simavr_radio_input(&r->radio);
    if (p[0].revents & POLLIN) {
        int fd = accept4(r->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd >= 0) {
            r->peer_fd = fd;
            r->peers++;
        }
    }
    if (r->peer_fd >= 0 && (p[1].revents & (POLLIN | POLLHUP | POLLERR))) {
        ssize_t got = read(r->peer_fd, r->in + r->in_len, sizeof r->in - r->in_len);
        if (got > 0) {
            r->in_len += (size_t)got;
            push_input(r);
        } else if (got == 0 || (errno != EAGAIN && errno != EINTR)) {
            close_peer(r);
        }
    }
}

/* --- time ------------------------------------------------------------------ */

static avr_cycle_count_t on_tick(struct avr_t *avr, avr_cycle_count_t when, void *param)
{
    struct runner *r = param;
    (void)avr;
    r->io_due = true;
    return when + r->tick_cycles;
}

/* simavr calls this when the CPU sleeps, for `how_long` cycles (to the next
 * cycle timer, at most the 1 ms tick); it then adds how_long + 1 to the
 * clock. Wait until the wall clock has caught up with that, or bytes came. */
static void on_sleep(avr_t *avr, avr_cycle_count_t how_long)
{
    struct runner *r = the_runner;
    uint64_t target = emulated_ns(r, avr->cycle + how_long + 1);
    uint64_t now = wall_ns(r);

    r->sleep_cycles += how_long + 1;
    if (target > now) {
        int ms = (int)((target - now + 999999u) / 1000000u);
        service_io(r, ms);
    }
}

/* --- output files ------------------------------------------------------------ */

static void write_file(const char *path, const void *data, size_t len)
{
    char tmp[4096];
    FILE *f;
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    f = fopen(tmp, "wb");
    if (f == NULL || fwrite(data, 1, len, f) != len || fclose(f) != 0) {
        fprintf(stderr, "moteip-simavr: cannot write %s: %s\n", path, strerror(errno));
        return;
    }
    if (rename(tmp, path) != 0)
        fprintf(stderr, "moteip-simavr: cannot rename %s: %s\n", tmp, strerror(errno));
}

static void dump(struct runner *r)
{
    if (r->ram_path != NULL)
        write_file(r->ram_path, r->avr->data, (size_t)r->avr->ramend + 1u);
    if (r->profile_path != NULL) {
        size_t cap = 64, len = 0, i;
        char *s = malloc(cap);
        for (i = 0; s != NULL && i < r->profile_words; i++) {
            char line[64];
            int k;
            if (r->profile[i] == 0)
                continue;
            k = snprintf(line, sizeof line, "%zx %" PRIu64 "\n", i * 2, r->profile[i]);
            if (len + (size_t)k + 1 > cap) {
                char *t = realloc(s, cap * 2 + (size_t)k);
                if (t == NULL) {
                    free(s);
                    s = NULL;
                    break;
                }
                s = t;
                cap = cap * 2 + (size_t)k;
            }
            memcpy(s + len, line, (size_t)k);
            len += (size_t)k;
        }
        if (s != NULL)
            write_file(r->profile_path, s, len);
        free(s);
    }
    if (r->stats_path != NULL) {
        char s[2048];
        int n = snprintf(s, sizeof s,
            "{\"frequency\": %" PRIu32 ", \"cycles\": %" PRIu64 ", \"sleep_cycles\": %" PRIu64
            ", \"active_cycles\": %" PRIu64 ", \"instructions\": %" PRIu64
            ", \"uart_rx_bytes\": %" PRIu64 ", \"uart_tx_bytes\": %" PRIu64
            ", \"uart_tx_dropped\": %" PRIu64 ", \"peers\": %" PRIu64
            ", \"emulated_s\": %.6f, \"wall_s\": %.6f, \"state\": %d",
            r->avr->frequency, (uint64_t)r->avr->cycle, r->sleep_cycles, r->active_cycles,
            r->instructions, r->uart_rx_bytes, r->uart_tx_bytes, r->uart_tx_dropped, r->peers,
            (double)emulated_ns(r, r->avr->cycle) / 1e9, (double)wall_ns(r) / 1e9,
            r->avr->state);
        if (r->radio_spec != NULL && n > 0 && (size_t)n < sizeof s)
            n += simavr_radio_stats(&r->radio, s + n, sizeof s - (size_t)n);
        if (n > 0 && (size_t)n + 2u < sizeof s)
            n += snprintf(s + n, sizeof s - (size_t)n, "}\n");
        write_file(r->stats_path, s, (size_t)n);
    }
}

/* --- set-up -------------------------------------------------------------------- */

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

static int listen_unix(const char *path)
{
    struct sockaddr_un a;
    int fd;

    if (strlen(path) >= sizeof a.sun_path)
        die_usage("--uart: path too long for a Unix socket: %s", path);
    fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0) {
        perror("moteip-simavr: socket");
        exit(1);
    }
    memset(&a, 0, sizeof a);
    a.sun_family = AF_UNIX;
    strcpy(a.sun_path, path);
    (void)unlink(path);
    if (bind(fd, (struct sockaddr *)&a, sizeof a) != 0 || listen(fd, 1) != 0) {
        fprintf(stderr, "moteip-simavr: cannot listen on %s: %s\n", path, strerror(errno));
        exit(1);
    }
    return fd;
}

static void parse_args(int argc, char **argv, struct runner *r, const char **elf,
                       const char **mcu, uint32_t *freq, uint8_t seed[SEED_LEN], bool *have_seed)
{
    int i;
    for (i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (a[0] != '-') {
            if (*elf != NULL)
                die_usage("one firmware only (%s and %s)", *elf, a);
            *elf = a;
            continue;
        }
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            printf("usage: moteip-simavr [--uart unix:PATH] [--mcu NAME] [--freq HZ] "
                   "[--seed HEX32] [--stats-json PATH] [--ram PATH] [--profile PATH] "
                   "[--at86rf233 LOCAL,REMOTE] "
                   "FIRMWARE.elf\n");
            exit(0);
        }
        if (v == NULL)
            die_usage("%s needs a value", a);
        i++;
        if (strcmp(a, "--uart") == 0) {
            if (strncmp(v, "unix:", 5) != 0 || v[5] == '\0')
                die_usage("--uart takes unix:PATH, not '%s'", v);
            r->uart_path = v + 5;
        } else if (strcmp(a, "--mcu") == 0) {
            *mcu = v;
        } else if (strcmp(a, "--freq") == 0) {
            char *end;
            unsigned long f;
            errno = 0;
            f = strtoul(v, &end, 10);
            if (errno != 0 || *end != '\0' || f < 1000000ul || f > 32000000ul)
                die_usage("--freq takes a clock in Hz from 1000000 to 32000000, not '%s'", v);
            *freq = (uint32_t)f;
        } else if (strcmp(a, "--seed") == 0) {
            int k;
            if (strlen(v) != 2 * SEED_LEN)
                die_usage("--seed takes %d hex digits, not '%s'", 2 * SEED_LEN, v);
            for (k = 0; k < SEED_LEN; k++) {
                int hi = hexval(v[2 * k]), lo = hexval(v[2 * k + 1]);
                if (hi < 0 || lo < 0)
                    die_usage("--seed takes %d hex digits, not '%s'", 2 * SEED_LEN, v);
                seed[k] = (uint8_t)(hi << 4 | lo);
            }
            *have_seed = true;
        } else if (strcmp(a, "--stats-json") == 0) {
            r->stats_path = v;
        } else if (strcmp(a, "--ram") == 0) {
            r->ram_path = v;
        } else if (strcmp(a, "--profile") == 0) {
            r->profile_path = v;
        } else if (strcmp(a, "--at86rf233") == 0) {
            r->radio_spec = v;
        } else {
            die_usage("unknown option %s", a);
        }
    }
    if (*elf == NULL)
        die_usage("no firmware given");
}

int main(int argc, char **argv)
{
    static struct runner run;
    struct runner *r = &run;
    const char *elf = NULL, *mcu = "atmega1284p";
    uint32_t freq = 16000000u, flags = 0;
    uint8_t seed[SEED_LEN];
    bool have_seed = false;
    elf_firmware_t fw;
    avr_eeprom_desc_t ee;
    struct sigaction sa;
    FILE *ready;
    int ready_fd, rc = 0;

    r->uart_path = "./moteip-simavr.uart";
    r->peer_fd = -1;
    parse_args(argc, argv, r, &elf, &mcu, &freq, seed, &have_seed);
    if (!have_seed && getrandom(seed, sizeof seed, 0) != (ssize_t)sizeof seed) {
        perror("moteip-simavr: getrandom");
        return 1;
    }

    /* libsimavr prints on stdout; the ready line keeps stdout to itself. */
    ready_fd = dup(STDOUT_FILENO);
    if (ready_fd < 0 || dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
        perror("moteip-simavr: dup");
        return 1;
    }
    ready = fdopen(ready_fd, "w");

    memset(&fw, 0, sizeof fw);
    if (elf_read_firmware(elf, &fw) != 0) {
        fprintf(stderr, "moteip-simavr: cannot read firmware %s\n", elf);
        return 2;
    }
    r->avr = avr_make_mcu_by_name(mcu);
    if (r->avr == NULL) {
        fprintf(stderr, "moteip-simavr: simavr does not know the MCU '%s'\n", mcu);
        return 2;
    }
    the_runner = r;
    avr_init(r->avr);
    r->avr->log = LOG_WARNING;
    r->avr->frequency = freq;
    avr_load_firmware(r->avr, &fw);
    r->avr->frequency = freq;            /* the ELF carries no .mmcu section */
    r->avr->sleep = on_sleep;

    /* Provisioning: the seed into EEPROM, the boot counter erased. */
    {
        uint8_t blank[4] = { 0xff, 0xff, 0xff, 0xff };
        ee.ee = seed;
        ee.offset = 0;
        ee.size = SEED_LEN;
        avr_ioctl(r->avr, AVR_IOCTL_EEPROM_SET, &ee);
        ee.ee = blank;
        ee.offset = SEED_LEN;
        ee.size = sizeof blank;
        avr_ioctl(r->avr, AVR_IOCTL_EEPROM_SET, &ee);
    }

    /* USART0: no printing of what the board sends, no sleeping in polls. */
    avr_ioctl(r->avr, AVR_IOCTL_UART_SET_FLAGS('0'), &flags);
    avr_irq_register_notify(avr_io_getirq(r->avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_OUTPUT),
                            on_uart_output, r);
    avr_irq_register_notify(avr_io_getirq(r->avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_OUT_XON),
                            on_uart_xon, r);
    avr_irq_register_notify(avr_io_getirq(r->avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_OUT_XOFF),
                            on_uart_xoff, r);

    if (r->profile_path != NULL) {
        r->profile_words = ((size_t)r->avr->flashend + 1u) / 2u;
        r->profile = calloc(r->profile_words, sizeof *r->profile);
        if (r->profile == NULL) {
            perror("moteip-simavr: profile");
            return 1;
        }
    }

    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGUSR1, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);

    r->listen_fd = listen_unix(r->uart_path);
    if (r->radio_spec != NULL) {
        char why[200];
        if (simavr_radio_open(&r->radio, r->avr, r->radio_spec, why, sizeof why) != 0) {
            fprintf(stderr, "moteip-simavr: %s\n", why);
            return 2;
        }
    }
    r->tick_cycles = freq / 1000u;
    avr_cycle_timer_register(r->avr, r->tick_cycles, on_tick, r);
    clock_gettime(CLOCK_MONOTONIC, &r->start);
    fprintf(ready, "ready uart=%s mcu=%s freq=%" PRIu32 "\n", r->uart_path, mcu, freq);
    fflush(ready);

    while (!stop_signal) {
        unsigned i;
        for (i = 0; i < STEPS_PER_CHECK && !r->io_due; i++) {
            avr_cycle_count_t c0 = r->avr->cycle;
            uint64_t s0 = r->sleep_cycles;
            avr_flashaddr_t pc = r->avr->pc;
            int before = r->avr->state;
            int st = avr_run(r->avr);
            uint64_t work = (uint64_t)(r->avr->cycle - c0) - (r->sleep_cycles - s0);
            if (st == cpu_Done || st == cpu_Crashed) {
                fprintf(stderr, "moteip-simavr: the firmware %s at pc 0x%x (cycle %" PRIu64 ")\n",
                        st == cpu_Done ? "stopped" : "crashed", (unsigned)pc,
                        (uint64_t)r->avr->cycle);
                rc = 1;
                goto out;
            }
            r->active_cycles += work;
            if (before == cpu_Running)
                r->instructions++;
            if (r->profile != NULL && (pc >> 1) < r->profile_words)
                r->profile[pc >> 1] += work;
        }
        if (r->io_due) {
            r->io_due = false;
            service_io(r, 0);
        }
        /* a reset of the chip (watchdog) clears the cycle timers */
        if (avr_cycle_timer_status(r->avr, on_tick, r) == 0)
            avr_cycle_timer_register(r->avr, r->tick_cycles, on_tick, r);
        if (dump_signal) {
            dump_signal = 0;
            dump(r);
        }
    }
out:
    dump(r);
    close_peer(r);
    close(r->listen_fd);
    (void)unlink(r->uart_path);
    return rc;
}
