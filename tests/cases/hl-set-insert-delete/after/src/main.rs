mod hello;

fn main() {
    hello::hello();
    println!("done");
}
