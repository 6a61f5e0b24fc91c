mod behaviour;
mod surface;
