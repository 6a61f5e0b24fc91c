mod calls;
mod refusals;
mod router_vectors;
mod rpc;
mod sim;
mod vectors;
