package io.ratelimit.autoconfigure.testapp;

import org.springframework.data.jpa.repository.JpaRepository;

public interface WidgetRepository extends JpaRepository<Widget, Long> {

}
