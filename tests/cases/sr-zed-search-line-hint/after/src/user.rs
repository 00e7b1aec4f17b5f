struct User {
    name: String,
    active: bool,
}

fn default_name() -> String {
    String::from("anon")
}

fn guest_name() -> String {
    String::from("guest")
}
