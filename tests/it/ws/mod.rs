mod decode;
mod fields_and_subscriptions;
mod follow;
mod stream;
