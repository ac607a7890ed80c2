/* layout: being written */
