fn main() {
    println!("quasidyn: see README.md");
}
