//! The `rig-dash` command line.

fn main() {
    println!("rig-dash: skeleton");
}
