"""Device model, NDRange decomposition, buffers, images and kernel launch."""
