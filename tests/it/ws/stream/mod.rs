mod books;
mod market;
mod recovery;
mod user;
mod user_faults;
