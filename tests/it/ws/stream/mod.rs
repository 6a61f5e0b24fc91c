mod books;
mod feed;
mod market;
mod recovery;
mod user;
mod user_faults;
mod user_trades;
