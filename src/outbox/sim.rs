fn _sim() {}
