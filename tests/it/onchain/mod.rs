mod rpc;
mod sim;
mod vectors;
