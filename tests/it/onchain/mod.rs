mod calls;
mod router_vectors;
mod rpc;
mod sim;
mod vectors;
