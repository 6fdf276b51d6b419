package io.ratelimit.autoconfigure.jpa;

import java.util.stream.Stream;

import io.ratelimit.autoconfigure.jpa.model.PolicyRowEntity;
import jakarta.persistence.QueryHint;

import org.springframework.data.jpa.repository.Query;
import org.springframework.data.jpa.repository.QueryHints;
import org.springframework.data.repository.Repository;

/**
 * Reads {@code rate_limit_policy}.
 */
public interface PolicyRowRepository extends Repository<PolicyRowEntity, Long> {

	/**
	 * Streams every row's columns in the order of {@link JpaPolicyStore}'s mapping, by id.
	 * Columns rather than entities, so that the persistence context does not keep a million
	 * of them until the read ends; fetched a few thousand at a time (PostgreSQL otherwise
	 * sends the whole result at once).
	 * @return the rows, to be closed within the transaction that opened them
	 */
	@Query("select p.id, p.endpoint, p.projectId, p.rpsLimit, p.mode, p.scope, p.limitName, p.appliesTo, "
			+ "p.endpointGroup, p.limitCount, p.limitWindow, p.burst, p.counts, p.plan from PolicyRowEntity p order by p.id")
	@QueryHints({ @QueryHint(name = "org.hibernate.fetchSize", value = "5000"),
			@QueryHint(name = "org.hibernate.readOnly", value = "true") })
	Stream<Object[]> streamAllColumnsOrderById();

}
