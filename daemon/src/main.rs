//! The `rigd` command line: parses arguments, maps errors to exit codes (0 ok, 2 bad config,
//! 1 anything else) and hands over to the library.

fn main() {
    println!("rigd: skeleton");
}
