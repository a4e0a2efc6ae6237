//! rig-dash shows the bridged game: `rigd run` with its dashboard in a real terminal (a
//! private tmux server) and `[source] kind = "game"`, fed by Forza FM7 Car Dash packets over
//! loopback (the same fake game as `game_bridge_e2e.rs`): the title bar names the game with
//! its packet rate and age where the driver would be, and the speed panel shows the game's
//! speed (108 km/h) and gear (4); `q` quits and rigd exits 0.

mod game_e2e;
mod motion_pty;
mod smc3_wire;
mod support;
#[path = "../../tests/support/tmux.rs"]
mod tmux;

use std::net::SocketAddr;
use std::path::Path;

use game_e2e::car::{Scenario, SendTiming};
use game_e2e::packets::forza::Forza;
use game_e2e::sender::{Game, Transport};
use support::*;
use tmux::Tmux;

fn shell_quote(path: &Path) -> String {
    format!("'{}'", path.display().to_string().replace('\'', r"'\''"))
}

#[test]
fn the_dashboard_shows_the_games_speed_gear_and_name() {
    let dir = TempDir::new("game-dash");
    let game_port = free_port();
    let config = dir.file(
        "rigd.toml",
        &format!(
            "{IDLE_TEST_CONFIG}\n[source]\nkind = \"game\"\nformat = \"auto\"\n\
             listen = [\"127.0.0.1:{game_port}\"]\n"
        ),
    );
    let command = format!(
        "env -u NOTIFY_SOCKET -u JOURNAL_STREAM XDG_STATE_HOME={} {} --config {} run; \
         echo rigd-exited-$?; sleep 60",
        shell_quote(&dir.0.join("state")),
        shell_quote(Path::new(env!("CARGO_BIN_EXE_rigd"))),
        shell_quote(&config),
    );
    let tmux = Tmux::start("rigd-game-dash", (120, 35), &command);
    tmux.wait_for("the dashboard waiting for the game", |s| {
        s.contains("rig-dash") && s.contains("waiting for game telemetry")
    });
    let game = Game::start(
        Box::new(Forza::new()),
        Transport::Listen(vec![SocketAddr::from(([127, 0, 0, 1], game_port))]),
        SendTiming::recorded(),
        Scenario::CRUISE,
    );
    let screen = tmux.wait_for("the game's speed, gear and name", |s| {
        s.lines()
            .next()
            .is_some_and(|title| title.contains("game: Forza FM7 Car Dash"))
            && s.contains(" 108 km/h")
            && s.contains("gear   4")
    });
    let title = screen.lines().next().unwrap_or_default();
    assert!(title.contains(" Hz, age "), "{screen}");
    drop(game);
    tmux.send_keys("q");
    let end = tmux.wait_for("rigd to exit", |s| s.contains("rigd-exited-"));
    assert!(end.contains("rigd-exited-0"), "{end}");
}
