fn main() {
    println!("{}", helper::greet("cage"));
}

#[cfg(test)]
mod tests {
    #[test]
    fn greets() {
        assert_eq!(helper::greet("x"), "hello x");
    }
}
