/* geometry: being written */
