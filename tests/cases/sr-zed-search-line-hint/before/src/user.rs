struct User {
    name: String,
}

fn default_name() -> String {
    String::from("anon")
}

fn guest_name() -> String {
    String::from("anon")
}
