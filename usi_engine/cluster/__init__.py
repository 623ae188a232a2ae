"""Work that outgrows one machine: the commands' batches as Ray tasks (:mod:`.ray_pool`)."""
