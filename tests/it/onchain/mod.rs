mod calls;
mod rpc;
mod sim;
mod vectors;
