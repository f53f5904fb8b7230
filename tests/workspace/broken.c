int broken(int n {
    return n +;
}
