mod books;
mod market;
mod recovery;
mod user;
