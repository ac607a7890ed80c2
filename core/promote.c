/* promote: being written */
