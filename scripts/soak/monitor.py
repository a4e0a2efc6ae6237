#!/usr/bin/env python3
"""The soak run behind scripts/soak.sh: starts rigd with everything on at once, plays every
outside party (telemetry listeners, a motion controller and a serial input device on ptys, a
listener that comes and goes, an operator reloading the config), samples the process and its
STATUS= once a minute, and ends with a verdict against the goals in docs/reliability.md and a CSV
of the series (scripts/soak.sh then draws it with rig-soak-plot).

Usage: monitor.py --rigd PATH --minutes M --out DIR [--no-tmux]
"""

import argparse
import atexit
import calendar
import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
import tty

FORMATS = ["native", "outgauge", "outsim-pack2", "forza-fm2023", "forza-horizon",
           "codemasters", "beamng-motionsim"]
MOTION_RATE_HZ = 100.0
# rigd logs its health, motion holds among it, once a second (daemon/src/runtime/service.rs).
HEALTH_REPORT_S = 1.0
AWAY_EVERY_S = 60.0
AWAY_FOR_S = 15.0
AWAY_FROM_S = 30.0


class Listener:
    """A loopback UDP listener counting datagrams; `close`/`reopen` make it come and go."""

    def __init__(self, port=0):
        self.count = 0
        self.lock = threading.Lock()
        self.sock = None
        self.port = port
        self.open()

    def open(self):
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        # 8 MB (8 s of the busiest stream): a loaded machine may leave this Python thread
        # unscheduled for a while, and the kernel must not drop what rigd sent meanwhile.
        # SO_RCVBUFFORCE passes rmem_max as root; elsewhere the plain request (capped) stands.
        try:
            s.setsockopt(socket.SOL_SOCKET, getattr(socket, "SO_RCVBUFFORCE", 33), 8 << 20)
        except PermissionError:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8 << 20)
        s.bind(("127.0.0.1", self.port))
        s.settimeout(0.05)
        self.port = s.getsockname()[1]
        self.sock = s
        self.stop = False
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self):
        s = self.sock
        while not self.stop:
            try:
                s.recv(4096)
            except (socket.timeout, OSError):
                continue
            with self.lock:
                self.count += 1

    def close(self):
        self.stop = True
        self.thread.join()
        self.sock.close()


def open_pty():
    master, slave = os.openpty()
    tty.setraw(slave)
    name = os.ttyname(slave)
    os.close(slave)
    os.set_blocking(master, False)
    return master, name


class MotionController:
    """Reads SMC3 frames `[A hi lo][B hi lo][C hi lo]` from the pty master and times them."""

    FRAME = re.compile(rb"\[A..\]\[B..\]\[C..\]", re.S)

    def __init__(self, master):
        self.master = master
        self.frames = 0
        self.garbage = 0
        self.gaps = []  # (time, gap s) of gaps over 5 frame periods in rigd's writing
        self.reader_delays = []  # (time, s) this reader was late while rigd kept writing
        self.last = None
        self.stop = False
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self):
        buf = b""
        while not self.stop:
            try:
                chunk = os.read(self.master, 4096)
            except (BlockingIOError, OSError):
                time.sleep(0.002)
                continue
            now = time.monotonic()
            buf += chunk
            end = 0
            found = list(self.FRAME.finditer(buf))
            # A gap is rigd's only when the frames that end it do not account for it: a reader
            # the host kept from running finds the frames rigd wrote meanwhile waiting in the
            # pty (about one per period), a writer that stopped leaves nothing to find.
            if found and self.last is not None and now - self.last > 5.0 / MOTION_RATE_HZ:
                gap = now - self.last
                if len(found) >= 0.5 * gap * MOTION_RATE_HZ:
                    self.reader_delays.append((now, gap))
                else:
                    self.gaps.append((now, gap))
            for m in found:
                self.garbage += len(buf[end:m.start()].replace(b"[", b"").strip(b"\x00"))
                end = m.end()
                self.frames += 1
                self.last = now
            buf = buf[end:] if end else buf[-64:]


class SerialDevice:
    """A DIY handbrake and shifter writing lines at 50 Hz."""

    def __init__(self, master):
        self.master = master
        self.lines = 0
        self.stop = False
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self):
        n = 0
        while not self.stop:
            line = b"H %d\nG %d\n" % (100 + (n * 7) % 800, 1 + (n // 500) % 5)
            try:
                os.write(self.master, line)
                self.lines += 2
            except (BlockingIOError, OSError):
                pass
            n += 1
            time.sleep(0.02)


class Notify:
    """systemd's notify socket: keeps the latest STATUS= and what the listeners had received
    when it arrived (`counts()`), so sent and received are compared at one moment. A reload
    starts a new running session whose late-tick and dropped-time counts begin at 0, so the
    counts of every earlier session are kept and added (`since_start`): what a session
    counted after its last STATUS= (at most one status period before the reload) is missed."""

    COUNTED = ("late >1 ms", "dropped")

    def __init__(self, path, counts):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(path)
        self.sock.settimeout(0.2)
        self.counts = counts
        self.status = ""
        self.received_at_status = {}
        self.ready = 0
        self.last = {label: 0.0 for label in self.COUNTED}
        self.earlier_sessions = {label: 0.0 for label in self.COUNTED}
        self.stop = False
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self):
        while not self.stop:
            try:
                msg = self.sock.recv(65536).decode(errors="replace")
            except socket.timeout:
                continue
            for line in msg.splitlines():
                if line.startswith("STATUS=") and " Hz," in line:
                    self.received_at_status = self.counts()
                    self.status = line[len("STATUS="):]
                    for label in self.COUNTED:
                        value = number_after(self.status, label) or 0.0
                        if value < self.last[label]:
                            self.earlier_sessions[label] += self.last[label]
                        self.last[label] = value
                elif line == "READY=1":
                    self.ready += 1

    def since_start(self, label):
        """A count of STATUS= (`late >1 ms`, `dropped`) over every session since rigd started."""
        return self.earlier_sessions[label] + self.last[label]


def number_after(text, label):
    m = re.search(re.escape(label) + r"\s*([0-9.]+)", text)
    return float(m.group(1)) if m else None


def telemetry_sent(status):
    """{port: (sent, errors)} from the telemetry part of STATUS= (an F1 output's streams to
    one port added up)."""
    out = {}
    for m in re.finditer(r" to 127\.0\.0\.1:(\d+): sent (\d+), errors (\d+)", status):
        sent, errors = out.get(int(m.group(1)), (0, 0))
        out[int(m.group(1))] = (sent + int(m.group(2)), errors + int(m.group(3)))
    return out


def kernel_drops(ports):
    """{port: datagrams the kernel dropped at our listening socket} (/proc/net/udp)."""
    drops = {}
    with open("/proc/net/udp") as f:
        for line in f.readlines()[1:]:
            fields = line.split()
            port = int(fields[1].split(":")[1], 16)
            if port in ports:
                drops[port] = drops.get(port, 0) + int(fields[-1])
    return drops


def hold_windows(log, wall_to_mono):
    """[(start, end)] in monotonic seconds of the motion holds the log reports."""
    windows, start = [], None
    stamp = re.compile(r"^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+)Z")
    with open(log, errors="replace") as f:
        for line in f:
            m = stamp.match(line)
            if not m:
                continue
            t = calendar.timegm(time.strptime(m.group(1)[:19], "%Y-%m-%dT%H:%M:%S"))
            t += float("0" + m.group(1)[19:]) + wall_to_mono
            if "left its cues" in line and "rejoined its cues already" in line:
                # A hold that began and ended between two health reports: one line for both.
                if start is None:
                    windows.append((t, t))
            elif "left its cues" in line and start is None:
                start = t
            elif "rejoins its cues" in line and start is not None:
                windows.append((start, t))
                start = None
    if start is not None:
        windows.append((start, float("inf")))
    return windows


def held_fds(pid, readings=5, apart_s=0.03):
    """The fds rigd holds: the fewest of a few readings 30 ms apart, so an fd that is open
    for a moment only is not counted; a leaked one stays open across the readings."""
    counts = []
    for i in range(readings):
        if i:
            time.sleep(apart_s)
        counts.append(len(os.listdir(f"/proc/{pid}/fd")))
    return min(counts)


def held_steady(counts):
    """(ok, detail) for a count that must not grow: every sample equals the most common
    value, except single samples between two that do (something held for a moment when one
    sample was taken), and the last sample equals it too. A leak stays: two samples in a row
    off the baseline, or the last one, fail."""
    baseline = max(set(counts), key=counts.count)
    off = [i for i, c in enumerate(counts) if c != baseline]
    isolated = all(i < len(counts) - 1 and i - 1 not in off and i + 1 not in off for i in off)
    return isolated, {"baseline": baseline,
                      "one-sample blips": [counts[i] for i in off] if isolated else None,
                      "values": sorted(set(counts))}


def proc_sample(pid):
    with open(f"/proc/{pid}/status") as f:
        text = f.read()
    rss_kb = int(re.search(r"VmRSS:\s+(\d+)", text).group(1))
    threads = int(re.search(r"Threads:\s+(\d+)", text).group(1))
    fds = held_fds(pid)
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    cpu_ticks = int(fields[11]) + int(fields[12])
    return rss_kb, fds, threads, cpu_ticks


def config_text(ports, away_port, motion_tty, serial_tty, away_rate, core):
    parts = ['[sim]\ncar = "road"\ntrack = "circuit"\nrobots = 3\n',
             f'[loop]\ncore = {core}\npm_qos = "off"\nlock_memory = false\nwhen_nobody_drives = "robot"\n']
    for fmt in FORMATS:
        dests = [f'"127.0.0.1:{ports[fmt]}"']
        if fmt == "native":
            dests.append(f'"127.0.0.1:{away_port}"')
        parts.append(f'[[telemetry]]\nformat = "{fmt}"\nrate_hz = 1000\ndestinations = [{", ".join(dests)}]\n')
    parts.append(f'[[telemetry]]\nformat = "f1-25"\nrate_hz = 60\ndestinations = ["127.0.0.1:{ports["f1-25"]}"]\n')
    parts.append(f'[[telemetry]]\nformat = "outgauge"\nrate_hz = {away_rate}\n'
                 f'destinations = ["127.0.0.1:{ports["reloaded"]}"]\n')
    parts.append(f"""[[motion.platforms]]
name = "seat"

[motion.platforms.geometry]
layout = "vertical"
actuator_points_m = [[-0.40, 0.25], [-0.40, -0.25]]
crank_radius_m = 0.10

[motion.platforms.actuators]
range_deg = 60.0
max_speed_deg_per_s = 120.0
max_accel_deg_per_s2 = 1200.0
park_position = -0.8

[[motion.platforms.outputs]]
preset = "smc3"
serial_port = "{motion_tty}"
post_open_delay_ms = 300

[[motion.serial_inputs]]
name = "handbrake box"
serial_port = "{serial_tty}"
gear_selector = true

[[motion.serial_inputs.axes]]
letter = "H"
function = "handbrake"
raw_min = 100
raw_max = 900
""")
    return "\n".join(parts)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rigd", required=True)
    ap.add_argument("--minutes", type=float, required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--no-tmux", action="store_true")
    ap.add_argument("--core", type=int, default=os.cpu_count() - 1,
                    help="the core rigd's loop is pinned to (default: the last, as rigd's own)")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    total_s = args.minutes * 60.0
    sample_s = 60.0 if args.minutes >= 5 else 15.0
    reload_every_s = min(300.0, total_s / 2)

    listeners = {fmt: Listener() for fmt in FORMATS + ["f1-25", "reloaded"]}
    away = Listener()
    away_port = away.port
    ports = {k: v.port for k, v in listeners.items()}
    motion_master, motion_tty = open_pty()
    serial_master, serial_tty = open_pty()
    motion = MotionController(motion_master)
    serial = SerialDevice(serial_master)
    notify_path = os.path.join(args.out, "notify.sock")
    if os.path.exists(notify_path):
        os.unlink(notify_path)
    notify = Notify(notify_path, lambda: {l.port: l.count for l in
                                          list(listeners.values()) + [away]})
    config = os.path.join(args.out, "rigd.toml")
    away_rate = 100
    with open(config, "w") as f:
        f.write(config_text(ports, away_port, motion_tty, serial_tty, away_rate, args.core))
    log = os.path.join(args.out, "rigd.log")

    session = None
    env = dict(os.environ, NOTIFY_SOCKET=notify_path)
    for k in ("WATCHDOG_USEC", "WATCHDOG_PID", "JOURNAL_STREAM"):
        env.pop(k, None)
    use_tmux = not args.no_tmux and subprocess.call(["sh", "-c", "command -v tmux"],
                                                    stdout=subprocess.DEVNULL) == 0
    if use_tmux:
        session = f"rigd-soak-{os.getpid()}"
        subprocess.check_call(["tmux", "new-session", "-d", "-s", session, "-x", "160", "-y", "48",
                               f"exec env NOTIFY_SOCKET={notify_path} {args.rigd} --config {config} "
                               f"run 2>{log}"])
        pid = int(subprocess.check_output(["tmux", "list-panes", "-t", session, "-F",
                                           "#{pane_pid}"]).split()[0])
        child = None
        # The tmux server is outside our process group: when the soak is stopped early (the
        # test command kills its group after another step failed) rigd must not keep running
        # and sending at 1 kHz into the next tests. SIGTERM exits through atexit.
        atexit.register(subprocess.call, ["tmux", "kill-session", "-t", session],
                        stderr=subprocess.DEVNULL)
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    else:
        child = subprocess.Popen([args.rigd, "--config", config, "run", "--no-display"], env=env,
                                 stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                 stderr=open(log, "w"))
        pid = child.pid
    start = time.monotonic()
    while notify.ready < 1:
        if time.monotonic() - start > 60:
            sys.exit("soak: rigd did not report READY=1 within 60 s; see " + log)
        time.sleep(0.1)
    start = time.monotonic()
    wall_to_mono = start - time.time()
    clk = os.sysconf("SC_CLK_TCK")
    rows = []
    away_windows = []
    reloads = []
    is_away = False
    next_sample = start + sample_s
    # Reloads fall between two samples (7 s after one), so no sample sees a reload's threads
    # half swapped; the next sample comes 8 s or more after it.
    next_reload = start + reload_every_s + 7.0
    last_cpu = proc_sample(pid)[3]
    last_t = start
    last_motion = motion.frames
    status_at_sample = ""
    screen = ""
    while time.monotonic() - start < total_s:
        time.sleep(0.2)
        now = time.monotonic()
        t = now - start
        phase = (t - AWAY_FROM_S) % AWAY_EVERY_S if t >= AWAY_FROM_S else None
        want_away = phase is not None and phase < AWAY_FOR_S and t + AWAY_FOR_S < total_s
        if want_away and not is_away:
            away.close()
            away_windows.append([now, None])
            is_away = True
        elif not want_away and is_away:
            away.open()
            away_windows[-1][1] = now
            is_away = False
        if now >= next_reload and now + 20 < start + total_s:
            away_rate = 200 if away_rate == 100 else 100
            tmp = config + ".new"
            with open(tmp, "w") as f:
                f.write(config_text(ports, away_port, motion_tty, serial_tty, away_rate, args.core))
            os.rename(tmp, config)
            os.kill(pid, signal.SIGHUP)
            reloads.append(now)
            next_reload += reload_every_s
        if now >= next_sample:
            rss_kb, fds, threads, cpu = proc_sample(pid)
            status = notify.status
            row = {
                "minute": round(t / 60.0, 2),
                "rss_mb": round(rss_kb / 1024.0, 3),
                "fds": fds,
                "threads": threads,
                "cpu_percent": round(100.0 * (cpu - last_cpu) / clk / (now - last_t), 2),
                "tick_hz": number_after(status, "") or 0.0,
                "wake_p99_us": number_after(status, "wake p99") or 0.0,
                "late_1ms": notify.since_start("late >1 ms"),
                "dropped_ms": notify.since_start("dropped"),
                "motion_frames_per_s": round((motion.frames - last_motion) / (now - last_t), 1),
                "native_received": listeners["native"].count,
            }
            rows.append(row)
            print("soak: " + ", ".join(f"{k} {v}" for k, v in row.items()), flush=True)
            last_cpu, last_t, last_motion = cpu, now, motion.frames
            status_at_sample = status
            next_sample += sample_s
            if use_tmux:
                screen = subprocess.run(["tmux", "capture-pane", "-p", "-t", session],
                                        capture_output=True, text=True).stdout
    if is_away:
        away.open()
        away_windows[-1][1] = time.monotonic()
    # Let the last second of packets land and the last STATUS= come, then stop rigd.
    time.sleep(1.5)
    final_status, received = notify.status, notify.received_at_status
    drops = kernel_drops({l.port for l in list(listeners.values()) + [away]})
    os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            break
        if child is not None and child.poll() is not None:
            break
        time.sleep(0.05)
    exit_code = child.wait(timeout=5) if child is not None else None
    if use_tmux:
        subprocess.call(["tmux", "kill-session", "-t", session], stderr=subprocess.DEVNULL)
    time.sleep(0.3)
    for l in list(listeners.values()) + [away]:
        l.close()
    motion.stop = serial.stop = notify.stop = True

    # Verdict.
    sent = telemetry_sent(final_status)
    lost = {}
    for name, l in list(listeners.items()) + [("native (comes and goes)", away)]:
        s_, e = sent.get(l.port, (0, 0))
        lost[name] = {"sent": s_, "errors": e, "received": received.get(l.port, 0),
                      "in_flight_or_lost": s_ - received.get(l.port, 0),
                      "kernel_drops": drops.get(l.port, 0)}
    away_s = sum(b - a for a, b in away_windows)
    gone = lost["native (comes and goes)"]
    gone_unaccounted = gone["sent"] + gone["errors"] - gone["received"]
    after_first = [r for r in rows if r["minute"] > 1.0] or rows[-1:]
    rss_growth = after_first[-1]["rss_mb"] - after_first[0]["rss_mb"]
    holds = hold_windows(log, wall_to_mono)
    # A hold is logged at the first health report after it began, and rigd reports once a
    # second: a late loop's gap that ends as its fault hold begins (the hold is the loop's
    # answer to the ticks it missed) comes up to a report period before the hold's line.
    excused = [(r, r + 5.0) for r in reloads] + [
        (a - HEALTH_REPORT_S - 0.2, b + 1.0) for a, b in holds]
    motion_gaps = [g for (at, g) in motion.gaps
                   if not any(a <= at and at - g <= b for a, b in excused)]
    checks = [
        ("RSS growth after the first minute <= 1 MB", rss_growth <= 1.0, f"{rss_growth:+.3f} MB"),
        ("open fds constant (a count off for one sample only is no leak)",
         *held_steady([r["fds"] for r in after_first])),
        ("threads constant", len({r["threads"] for r in after_first}) == 1,
         sorted({r["threads"] for r in after_first})),
        ("no lost motion frames (no gap over 50 ms outside a hold or a reload, no torn frame)",
         not motion_gaps and motion.garbage == 0,
         f"{motion.frames} frames, {len(holds)} hold(s), unexplained gaps "
         f"{[round(g, 3) for g in motion_gaps][:5]}, garbage bytes {motion.garbage}; "
         f"the monitor itself read late {len(motion.reader_delays)} time(s), longest "
         f"{max([g for _, g in motion.reader_delays], default=0):.3f} s"),
        ("no telemetry lost to a listener that stayed (no send error, no kernel drop, all "
         "received but what was in flight)",
         all(v["errors"] == 0 and v["kernel_drops"] == 0 and abs(v["in_flight_or_lost"]) <= 100
             for k, v in lost.items() if "comes" not in k),
         {k: (v["in_flight_or_lost"], v["kernel_drops"]) for k, v in lost.items()
          if "comes" not in k}),
        ("loss at the listener that comes and goes only while it is away (at most its rate "
         "times the time away)",
         gone_unaccounted <= 1.05 * 1000 * away_s + 100,
         f"{gone_unaccounted} not received of {gone['sent'] + gone['errors']} due, "
         f"{away_s:.0f} s away at 1000 Hz, {gone['errors']} refused"),
        ("rigd exited cleanly", exit_code in (0, None), exit_code),
    ]
    summary = {
        "minutes": args.minutes, "samples": rows, "telemetry": lost, "reloads": len(reloads),
        "motion_holds": len(holds),
        "away_windows": len(away_windows), "serial_lines_written": serial.lines,
        "final_status": final_status, "checks": [[n, ok, str(d)] for n, ok, d in checks],
    }
    with open(os.path.join(args.out, "summary.json"), "w") as f:
        json.dump(summary, f, indent=1)
    with open(os.path.join(args.out, "series.csv"), "w") as f:
        f.write(",".join(rows[0].keys()) + "\n")
        for r in rows:
            f.write(",".join(str(v) for v in r.values()) + "\n")
    if screen:
        with open(os.path.join(args.out, "dashboard.txt"), "w") as f:
            f.write(screen)
    print(f"soak: {args.minutes:g} min, {len(rows)} samples, {len(reloads)} reload(s), "
          f"{len(away_windows)} listener absence(s); status at the last sample: {status_at_sample}")
    failed = 0
    for name, ok, detail in checks:
        print(f"soak: {'PASS' if ok else 'FAIL'}  {name}: {detail}")
        failed += not ok
    print(f"soak: series {args.out}/series.csv, log {log}")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
