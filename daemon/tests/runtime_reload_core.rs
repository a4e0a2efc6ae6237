//! A SIGHUP reload that changes `[loop] core` moves the physics thread to the new core and
//! every other thread of the daemon off it, except the telemetry sender when
//! `telemetry_sender_core = "rt-core"`, which goes with it; read back from the kernel
//! (`/proc/PID/task/*/status`, `Cpus_allowed_list`) before and after. Needs two cores this
//! process may use freely; on one core, or inside a cpuset that hides some (the kernel then
//! narrows every mask), it only checks that the reload succeeds.

mod support;

use std::time::Duration;

use support::*;

/// (thread name, allowed cores) of every thread of `pid`.
fn thread_affinities(pid: u32) -> Vec<(String, String)> {
    let mut threads = Vec::new();
    for entry in std::fs::read_dir(format!("/proc/{pid}/task")).unwrap() {
        let dir = entry.unwrap().path();
        let (Ok(comm), Ok(status)) = (
            std::fs::read_to_string(dir.join("comm")),
            std::fs::read_to_string(dir.join("status")),
        ) else {
            continue; // the thread ended meanwhile
        };
        let allowed = status
            .lines()
            .find_map(|l| l.strip_prefix("Cpus_allowed_list:"))
            .unwrap()
            .trim()
            .to_string();
        threads.push((comm.trim().to_string(), allowed));
    }
    threads
}

/// The cores each thread of `pid` must be allowed, or the first difference.
fn layout_problem(pid: u32, rt_core: usize, others: &str, sender_shares: bool) -> Option<String> {
    let threads = thread_affinities(pid);
    let rt: Vec<_> = threads.iter().filter(|(n, _)| n == "rigd-rt").collect();
    if rt.len() != 1 || rt[0].1 != rt_core.to_string() {
        return Some(format!("one RT thread on core {rt_core}: {threads:?}"));
    }
    for (name, allowed) in threads.iter().filter(|(n, _)| n != "rigd-rt") {
        let on_rt_core = sender_shares && name == "rigd-telemetry";
        let expected = if on_rt_core {
            rt_core.to_string()
        } else {
            others.to_string()
        };
        if *allowed != expected {
            return Some(format!("thread {name} must run on {expected}: {threads:?}"));
        }
    }
    None
}

/// Asserts the layout, allowing a second for the previous session's sender to notice that its
/// stage is gone and end.
fn assert_layout(pid: u32, rt_core: usize, others: &str, sender_shares: bool, when: &str) {
    let deadline = std::time::Instant::now() + Duration::from_secs(1);
    loop {
        match layout_problem(pid, rt_core, others, sender_shares) {
            None => return,
            Some(problem) if std::time::Instant::now() > deadline => panic!("{when}: {problem}"),
            Some(_) => std::thread::sleep(Duration::from_millis(20)),
        }
    }
}

/// `cores` as the kernel writes a CPU list: ascending, runs as ranges (`0,2-3`).
fn cpu_list(cores: impl Iterator<Item = usize>) -> String {
    let mut runs: Vec<(usize, usize)> = Vec::new();
    for core in cores {
        match runs.last_mut() {
            Some((_, end)) if *end + 1 == core => *end = core,
            _ => runs.push((core, core)),
        }
    }
    runs.iter()
        .map(|&(a, b)| {
            if a == b {
                a.to_string()
            } else {
                format!("{a}-{b}")
            }
        })
        .collect::<Vec<_>>()
        .join(",")
}

#[test]
fn a_reload_to_another_core_moves_the_rt_thread_and_everything_else_off_it() {
    // At start the telemetry sender stays off the physics core (the default); the reload also
    // asks for `rt-core`, so afterwards it runs on the new physics core beside the loop.
    // SAFETY: sysconf has no memory-safety preconditions.
    let cores = unsafe { libc::sysconf(libc::_SC_NPROCESSORS_ONLN) }.max(1) as usize;
    let own_status = std::fs::read_to_string("/proc/self/status").unwrap();
    let own_allowed = own_status
        .lines()
        .find_map(|l| l.strip_prefix("Cpus_allowed_list:"))
        .unwrap()
        .trim();
    let check_affinity = cores >= 2 && own_allowed == cpu_list(0..cores);
    let dir = TempDir::new("reload-core");
    let with_core = |core: usize| format!("{TEST_CONFIG}core = {core}\n");
    let config = dir.file("rigd.toml", &with_core(0));
    let notify = NotifySocket::bind(&dir.0);
    let mut child = spawn_rigd(&config, &notify, &[], &[]);
    notify.wait_for("READY=1", Duration::from_secs(20));
    let all_but = |core: usize| cpu_list((0..cores).filter(|&c| c != core));
    if check_affinity {
        assert_layout(child.id(), 0, &all_but(0), false, "at start");
    }

    let rt_core = "telemetry_sender_core = \"rt-core\"\n";
    std::fs::write(&config, with_core(1.min(cores - 1)) + rt_core).unwrap();
    signal(&child, libc::SIGHUP);
    notify.wait_for("RELOADING=1", Duration::from_secs(10));
    notify.wait_for("READY=1", Duration::from_secs(20));
    if check_affinity {
        assert_layout(child.id(), 1, &all_but(1), true, "after the reload");
    }

    signal(&child, libc::SIGTERM);
    let status = wait_exit(&mut child, Duration::from_secs(5));
    let stderr = stderr_of(&mut child);
    assert_eq!(status.code(), Some(0), "{stderr}");
    if check_affinity {
        assert!(
            stderr.contains("the physics loop moves from core 0 to core 1"),
            "{stderr}"
        );
    }
}
