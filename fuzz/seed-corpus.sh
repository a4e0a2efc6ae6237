#!/usr/bin/env bash
# Writes the seed corpora in fuzz/corpus/<target>/ from valid examples, so the fuzzers start
# from inputs that pass every check and mutate from there instead of searching for a magic
# number first. Re-run after a format, config or data file changes; the result is committed.
#   - telemetry and game packets: captured from the real rigd (target/debug/rigd, built if
#     missing) sending every output format to loopback listeners while robot cars lap;
#   - config, car, track, .tir and envelope files: examples/, the daemon's test fixture, physics/data/;
#   - serial input lines, motion frame templates and a recording: written here.
# Usage: fuzz/seed-corpus.sh
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
corpus="$root/fuzz/corpus"
cd "$root"

cargo build --quiet --profile test -p rigd --bin rigd
rigd="$root/target/debug/rigd"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# One destination port per output format, in a range no test uses.
formats=(native outgauge outsim outsim-pack2 forza-sled forza-fm7-dash forza-horizon
         forza-fm2023 codemasters beamng-motionsim f1-24 f1-25)
base_port=39870
{
    printf '[sim]\ncar = "rally"\ntrack = "circuit"\nrobots = 2\n\n'
    printf '[loop]\npm_qos = "off"\nlock_memory = false\nspin_us = 0\nwhen_nobody_drives = "robot"\n'
    for i in "${!formats[@]}"; do
        printf '\n[[telemetry]]\nformat = "%s"\ndestinations = ["127.0.0.1:%d"]\nrate_hz = 60\n' \
            "${formats[$i]}" $((base_port + i))
    done
    printf '\n[[telemetry]]\nformat = "outgauge"\nid = 7\ndestinations = ["127.0.0.1:%d"]\n' $((base_port + 20))
    printf '\n[[telemetry]]\nformat = "outsim"\nid = 7\ndestinations = ["127.0.0.1:%d"]\n' $((base_port + 21))
} >"$work/rigd.toml"

# Listens on every port, keeps the packets seen at a few moments of the run (different car
# states, and every F1 packet type), and files them under the targets that read that format.
python3 - "$rigd" "$work/rigd.toml" "$corpus" "$base_port" "${formats[@]}" <<'EOF'
import hashlib, os, socket, subprocess, sys, time
rigd, config, corpus, base = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
formats = sys.argv[5:]
ports = {base + i: f for i, f in enumerate(formats)}
ports[base + 20] = "outgauge"
ports[base + 21] = "outsim"
targets = {
    "native": ["native", "decode_any"],
    "outgauge": ["outgauge", "decode_any", "game_lfs"],
    "outsim": ["outsim", "decode_any", "game_lfs"],
    "outsim-pack2": ["decode_any"],
    "forza-sled": ["forza", "decode_any", "game_forza"],
    "forza-fm7-dash": ["forza", "decode_any", "game_forza"],
    "forza-horizon": ["forza", "decode_any", "game_forza"],
    "forza-fm2023": ["forza", "decode_any", "game_forza"],
    "codemasters": ["codemasters", "decode_any", "game_codemasters"],
    "beamng-motionsim": ["beamng", "decode_any", "game_beamng"],
    "f1-24": ["game_f1", "game_ea_wrc"],
    "f1-25": ["game_f1"],
}
socks = {}
for port in ports:
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("127.0.0.1", port))
    s.setblocking(False)
    socks[port] = s
proc = subprocess.Popen([rigd, "--config", config, "run", "--no-display"],
                        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
kept = {}
start = time.monotonic()
try:
    for moment in (1.5, 3.0, 6.0):
        time.sleep(max(0.0, start + moment - time.monotonic()))
        for port, s in socks.items():
            while True:
                try:
                    packet = s.recv(4096)
                except BlockingIOError:
                    break
                key = (ports[port], len(packet), packet[:7] if ports[port].startswith("f1") else b"")
                kept.setdefault((key, moment), packet)
finally:
    proc.terminate()
    proc.wait(timeout=10)

def write(target, data):
    d = os.path.join(corpus, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, hashlib.sha1(data).hexdigest()), "wb") as f:
        f.write(data)

for ((fmt, length, _), _), packet in kept.items():
    for target in targets[fmt]:
        write(target, packet)
    if fmt == "outsim-pack2":
        # The pack2 targets read the OutSim Opts from the first two bytes (0x1ff: rigd's default).
        for target in ("outsim_pack2", "game_lfs"):
            write(target, (0x1FF).to_bytes(2, "little") + packet)
missing = sorted({f for f in ports.values()} - {k[0][0] for k in kept})
if missing:
    sys.exit(f"seed-corpus: no packet captured for {missing}: is rigd sending?")
EOF

copy() { # target, files...
    local target="$1"; shift
    mkdir -p "$corpus/$target"
    for file in "$@"; do cp "$file" "$corpus/$target/$(basename "$file")"; done
}
copy config examples/*.toml daemon/tests/fixtures/*.toml
copy car physics/data/cars/*.toml
copy track physics/data/tracks/*.toml
copy tir physics/data/tyres/*.tir
copy envelope physics/data/envelopes/*.toml

# GT7 sends only encrypted packets; the target encrypts a plaintext of each variant's length.
mkdir -p "$corpus/game_gt7"
for len in 296 316 344; do head -c "$len" /dev/zero >"$corpus/game_gt7/plain-$len"; done

mkdir -p "$corpus/serial_input"
printf 'H 512\nG 3\nB 4 1\n# handbrake v1.2\n\nG -1\r\nB 63 0\nA 65535\n' >"$corpus/serial_input/documented"
printf 'H 51' >"$corpus/serial_input/partial"

# Motion templates: bit depth byte, format byte (0 binary, 1 decimal, 2 hex), then the text.
mkdir -p "$corpus/motion_template"
printf '\x0a\x00[A<Axis1a>][B<Axis2a>][C<Axis3a>]' >"$corpus/motion_template/smc3"
printf '\x10\x00<255><255><Axis1a><Axis2a><Axis3a><Axis4a><Axis5a><Axis6a>' >"$corpus/motion_template/binary16"
printf '\x10\x01A<Axis1a>B<Axis2b>C<Axis6c><13><10>' >"$corpus/motion_template/decimal"
printf '\x0c\x02X<Axis1a>Y<Axis2a><0>' >"$corpus/motion_template/hex"

# A short recording (the recorder writes the car and track texts, so it is kept short).
printf '[sim]\ncar = "road"\ntrack = "skidpad"\n\n[loop]\npm_qos = "off"\nlock_memory = false\nspin_us = 0\nwhen_nobody_drives = "robot"\n\n[[telemetry]]\nenabled = false\nformat = "native"\ndestinations = ["127.0.0.1:39899"]\n' >"$work/record.toml"
"$rigd" --config "$work/record.toml" run --no-display --record "$work/seed.rigrec" </dev/null >/dev/null 2>&1 &
rigd_pid=$!
sleep 1.5
kill -TERM "$rigd_pid"
wait "$rigd_pid" || true
mkdir -p "$corpus/recording"
cp "$work/seed.rigrec" "$corpus/recording/skidpad.rigrec"

# A USB HID gamepad report descriptor (usage page, collection, 2 axes, 8 buttons): the PID
# layouts rigd looks for grow from its items.
mkdir -p "$corpus/hid_descriptor"
printf '\x05\x01\x09\x05\xa1\x01\x15\x00\x26\xff\x00\x75\x08\x95\x02\x09\x30\x09\x31\x81\x02\x05\x09\x19\x01\x29\x08\x15\x00\x25\x01\x75\x01\x95\x08\x81\x02\x05\x0f\x09\x21\xa1\x02\x85\x01\x09\x22\x15\x01\x25\x28\x75\x08\x95\x01\x91\x02\x09\x25\xa1\x02\x09\x26\x15\x01\x25\x01\x91\x00\xc0\xc0\xc0' >"$corpus/hid_descriptor/gamepad-pid"

echo "seed-corpus: $(find "$corpus" -type f | wc -l) files in $corpus" >&2
