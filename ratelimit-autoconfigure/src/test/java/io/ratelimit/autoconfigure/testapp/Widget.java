package io.ratelimit.autoconfigure.testapp;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;

@Entity
public class Widget {

	@Id
	private Long id;

	private String name;

	protected Widget() {
	}

	public Long getId() {
		return this.id;
	}

	public String getName() {
		return this.name;
	}

}
